import type { SqlExecutor, TransactionalClient } from '@msp/events';

/** Rows per statement (and transaction): small, so no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;

const batch = (table: string, key: string, set: string, where: string) =>
  `UPDATE ${table} SET ${set} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${DELETION_BATCH})`;
const remove = (table: string, key: string, where: string) =>
  `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${DELETION_BATCH})`;

/**
 * ACC-5 in messaging (docs/account-control.md): the deleted user's messages lose their sender
 * (NULL, shown as "Deleted user") and their conversations their participant slot, so the other
 * party keeps the conversation and reads it whole; a conversation whose both participants are
 * gone is removed with its messages. Then the published events about their messages, the copies
 * of their follows, blocks and ban, and their user copy. Each statement takes the user id as $1 and touches at most DELETION_BATCH rows; the
 * caller repeats it in its own transaction until it changes nothing (idempotent, restart-safe).
 */
export const USER_DELETION_STEPS: readonly string[] = [
  batch('messages', 'id', 'sender_id = NULL', 'sender_id = $1'),
  batch('conversations', 'id', 'user_low_id = NULL', 'user_low_id = $1'),
  batch('conversations', 'id', 'user_high_id = NULL', 'user_high_id = $1'),
  // Messages first (the cascade of a big conversation would be one long statement).
  `DELETE FROM messages WHERE id IN (
     SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id
      WHERE c.user_low_id IS NULL AND c.user_high_id IS NULL LIMIT ${DELETION_BATCH})`,
  remove('conversations', 'id', 'user_low_id IS NULL AND user_high_id IS NULL'),
  remove('follows', 'ctid', 'follower_id = $1 OR followee_id = $1'),
  remove('blocks', 'ctid', 'blocker_id = $1 OR blocked_id = $1'),
  // Published events about their messages (a Message rendering names the sender); unpublished ones are the relay's.
  remove(
    'outbox_event',
    'id',
    `published_at IS NOT NULL AND $1::int::text IN (payload->'data'->>'senderId', payload->'data'->>'recipientId',
                                                     payload->'data'->>'readerId', payload->'data'->>'partnerId')`,
  ),
  'DELETE FROM banned_users WHERE user_id = $1',
  'DELETE FROM user_summaries WHERE user_id = $1',
];

export const userDeletionRepository = {
  /** Every step in batches, each in its own transaction, until it changes nothing. */
  async removeAll(db: TransactionalClient, userId: number): Promise<void> {
    for (const sql of USER_DELETION_STEPS) {
      let changed = 1;
      while (changed > 0) changed = await db.$transaction((tx) => run(tx, sql, userId), { maxWait: 10_000, timeout: 15_000 });
    }
  },
};

/** One batch of one step; how many rows it changed. */
function run(tx: SqlExecutor, sql: string, userId: number): Promise<number> {
  // A step without $1 is run without the parameter (Postgres refuses one the statement does not use).
  return sql.includes('$1') ? tx.$executeRawUnsafe(sql, userId) : tx.$executeRawUnsafe(sql);
}

import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { removeInBatches, type Logger } from '@msp/runtime';

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
 * gone is removed with its messages. Then the published events about their messages (OUTBOX_STEP),
 * and COPY_STEPS. Each statement takes the user id as $1 and touches at most DELETION_BATCH rows;
 * the caller repeats it in its own transaction until it changes nothing (idempotent, restart-safe).
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
];

/** After the published events: the copies of their follows, blocks and ban, and their user copy. */
export const COPY_STEPS: readonly string[] = [
  remove('follows', 'ctid', 'follower_id = $1 OR followee_id = $1'),
  remove('blocks', 'ctid', 'blocker_id = $1 OR blocked_id = $1'),
  'DELETE FROM banned_users WHERE user_id = $1',
  'DELETE FROM user_summaries WHERE user_id = $1',
];

/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

/**
 * Published events about their messages (a Message rendering names the sender) among the
 * OUTBOX_SCAN outbox rows after $2 in commit order (a keyset on `seq`: one pass over the outbox,
 * not a scan of the whole table per batch); unpublished ones are the relay's. Runs before the
 * copies of their follows, blocks, ban and user copy go.
 */
const OUTBOX_STEP = `WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > $2 ORDER BY seq LIMIT ${OUTBOX_SCAN}),
       d AS (DELETE FROM outbox_event o USING s
              WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                AND $1::int::text IN (s.payload->'data'->>'senderId', s.payload->'data'->>'recipientId',
                                      s.payload->'data'->>'readerId', s.payload->'data'->>'partnerId')
             RETURNING 1)
  SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`;

const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

export const userDeletionRepository = {
  /** Every step in batches, each in its own transaction, until it changes nothing (`removeInBatches`). */
  async removeAll(db: TransactionalClient, userId: number, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<void> {
    const removal = (name: string) => ({ name: `messaging.${name}`, logger, context: { userId } });
    const steps = async (list: readonly string[], name: string) => {
      for (const [index, sql] of list.entries()) {
        await removeInBatches(() => db.$transaction((tx) => run(tx, sql, userId), TX_OPTIONS), removal(`${name}.${index}`));
      }
    };
    await steps(USER_DELETION_STEPS, 'conversations');
    await removeInBatches<bigint>(
      (after) =>
        db.$transaction(async (tx) => {
          const [row] = await tx.$queryRawUnsafe<Array<{ scanned: number; last: bigint | null; removed: number }>>(OUTBOX_STEP, userId, after ?? 0n);
          return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
        }, TX_OPTIONS),
      removal('outbox_event'),
    );
    await steps(COPY_STEPS, 'copies');
  },
};

/** One batch of one step; how many rows it changed. */
function run(tx: SqlExecutor, sql: string, userId: number): Promise<number> {
  // A step without $1 is run without the parameter (Postgres refuses one the statement does not use).
  return sql.includes('$1') ? tx.$executeRawUnsafe(sql, userId) : tx.$executeRawUnsafe(sql);
}

import { raw, sql, type Sql } from '@msp/db';
import type { TransactionalClient } from '@msp/events';
import { removeInBatches, type Logger } from '@msp/runtime';

/** Rows per statement (and transaction): small, so no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;

/** One batch of one step for a user (a step that does not name the user ignores the id). */
export type DeletionStep = (userId: number) => Sql;

/** `table` and `key` are identifiers from the lists below, never input. */
const batch = (table: string, key: string, set: Sql, where: Sql) =>
  sql`UPDATE ${raw(table)} SET ${set} WHERE ${raw(key)} IN (SELECT ${raw(key)} FROM ${raw(table)} WHERE ${where} LIMIT ${DELETION_BATCH})`;
const remove = (table: string, key: string, where: Sql) =>
  sql`DELETE FROM ${raw(table)} WHERE ${raw(key)} IN (SELECT ${raw(key)} FROM ${raw(table)} WHERE ${where} LIMIT ${DELETION_BATCH})`;

/**
 * ACC-5 in messaging (docs/account-control.md): the deleted user's messages lose their sender
 * (NULL, shown as "Deleted user") and their conversations their participant slot, so the other
 * party keeps the conversation and reads it whole; a conversation whose both participants are
 * gone is removed with its messages. Then the published events about their messages (outboxStep),
 * and COPY_STEPS. Each statement is built for the user id and touches at most DELETION_BATCH rows;
 * the caller repeats it in its own transaction until it changes nothing (idempotent, restart-safe).
 */
export const USER_DELETION_STEPS: readonly DeletionStep[] = [
  (userId) => batch('messages', 'id', sql`sender_id = NULL`, sql`sender_id = ${userId}`),
  (userId) => batch('conversations', 'id', sql`user_low_id = NULL`, sql`user_low_id = ${userId}`),
  (userId) => batch('conversations', 'id', sql`user_high_id = NULL`, sql`user_high_id = ${userId}`),
  // Messages first (the cascade of a big conversation would be one long statement).
  () => sql`DELETE FROM messages WHERE id IN (
     SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id
      WHERE c.user_low_id IS NULL AND c.user_high_id IS NULL LIMIT ${DELETION_BATCH})`,
  () => remove('conversations', 'id', sql`user_low_id IS NULL AND user_high_id IS NULL`),
];

/** After the published events: the copies of their follows, blocks and ban, and their user copy. */
export const COPY_STEPS: readonly DeletionStep[] = [
  (userId) => remove('follows', 'ctid', sql`follower_id = ${userId} OR followee_id = ${userId}`),
  (userId) => remove('blocks', 'ctid', sql`blocker_id = ${userId} OR blocked_id = ${userId}`),
  (userId) => sql`DELETE FROM banned_users WHERE user_id = ${userId}`,
  (userId) => sql`DELETE FROM user_summaries WHERE user_id = ${userId}`,
];

/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

/**
 * Published events about their messages (a Message rendering names the sender) among the
 * OUTBOX_SCAN outbox rows after `after` in commit order (a keyset on `seq`: one pass over the outbox,
 * not a scan of the whole table per batch); unpublished ones are the relay's. Runs before the
 * copies of their follows, blocks, ban and user copy go.
 */
const outboxStep = (
  userId: number,
  after: bigint,
) => sql`WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > ${after} ORDER BY seq LIMIT ${OUTBOX_SCAN}),
       d AS (DELETE FROM outbox_event o USING s
              WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                AND ${userId}::int::text IN (s.payload->'data'->>'senderId', s.payload->'data'->>'recipientId',
                                      s.payload->'data'->>'readerId', s.payload->'data'->>'partnerId')
             RETURNING 1)
  SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`;

const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

export const userDeletionRepository = {
  /** Every step in batches, each in its own transaction, until it changes nothing (`removeInBatches`). */
  async removeAll(db: TransactionalClient, userId: number, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<void> {
    const removal = (name: string) => ({ name: `messaging.${name}`, logger, context: { userId } });
    const steps = async (list: readonly DeletionStep[], name: string) => {
      for (const [index, step] of list.entries()) {
        await removeInBatches(() => db.$transaction((tx) => tx.$executeRaw(step(userId)), TX_OPTIONS), removal(`${name}.${index}`));
      }
    };
    await steps(USER_DELETION_STEPS, 'conversations');
    await removeInBatches<bigint>(
      (after) =>
        db.$transaction(async (tx) => {
          const [row] = await tx.$queryRaw<Array<{ scanned: number; last: bigint | null; removed: number }>>(outboxStep(userId, after ?? 0n));
          return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
        }, TX_OPTIONS),
      removal('outbox_event'),
    );
    await steps(COPY_STEPS, 'copies');
  },
};

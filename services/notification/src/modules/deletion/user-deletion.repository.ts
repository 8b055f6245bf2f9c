import { raw, sql, type Sql, type SqlExecutor } from '@msp/db';
import type { TransactionalClient } from '@msp/events';
import { removeInBatches, type Logger } from '@msp/runtime';

/** Rows per statement (and transaction): small, so no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;
/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

/** JSON fields of a webhook delivery body that name a user (webhooks.consumers.ts). */
const USER_FIELDS = 'userId|ownerId|authorId|trackOwnerId|followerId|followeeId|senderId|recipientId|artistId';
/** The start of the pattern of such a field (`"(userId|…)":`), bound as a value; the user id and `[,}]` follow it. */
const USER_FIELDS_PATTERN = `"(${USER_FIELDS})":`;

/**
 * ACC-5 in notification: one statement per kind of row, each removing at most DELETION_BATCH
 * rows carrying the deleted user, called in a loop until it removes nothing. Notifications to
 * them and from them (as actor), the 24 h de-duplication keys, preferences, push devices, the
 * copies of their tracks, playlists, follows, blocks and ban, and webhook rows of theirs (grants,
 * apps and endpoints they own, deliveries about them), the published events naming them. Idempotent: re-running removes nothing more.
 */
export class UserDeletionRepository {
  /** The statements in order; each is built for the user id. */
  readonly steps: ReadonlyArray<{ table: string; sql: (userId: number) => Sql }> = [
    { table: 'notifications', sql: (userId) => this.batch('notifications', 'id', sql`recipient_id = ${userId} OR actor_id = ${userId}`) },
    { table: 'notification_dedup', sql: (userId) => this.batch('notification_dedup', 'ctid', sql`recipient_id = ${userId} OR actor_id = ${userId}`) },
    { table: 'notification_preferences', sql: (userId) => sql`DELETE FROM notification_preferences WHERE user_id = ${userId}` },
    { table: 'device_tokens', sql: (userId) => this.batch('device_tokens', 'id', sql`user_id = ${userId}`) },
    { table: 'track_refs', sql: (userId) => this.batch('track_refs', 'track_id', sql`artist_id = ${userId}`) },
    { table: 'playlist_refs', sql: (userId) => this.batch('playlist_refs', 'playlist_id', sql`owner_id = ${userId}`) },
    { table: 'follows', sql: (userId) => this.batch('follows', 'ctid', sql`follower_id = ${userId} OR followee_id = ${userId}`) },
    { table: 'blocks', sql: (userId) => this.batch('blocks', 'ctid', sql`blocker_id = ${userId} OR blocked_id = ${userId}`) },
    { table: 'banned_users', sql: (userId) => sql`DELETE FROM banned_users WHERE user_id = ${userId}` },
    { table: 'webhook_grants', sql: (userId) => this.batch('webhook_grants', 'grant_id', sql`user_id = ${userId}`) },
    {
      table: 'webhook_deliveries',
      sql: (userId) =>
        this.batch(
          'webhook_deliveries',
          'id',
          sql`resource_key = 'user:' || ${userId}::int::text OR body ~ (${USER_FIELDS_PATTERN}::text || ${userId}::int::text || '[,}]')
         OR endpoint_id IN (SELECT id FROM webhook_endpoints WHERE owner_id = ${userId}::int)`,
        ),
    },
    { table: 'webhook_endpoints', sql: (userId) => this.batch('webhook_endpoints', 'id', sql`owner_id = ${userId}`) },
    { table: 'webhook_apps', sql: (userId) => this.batch('webhook_apps', 'app_id', sql`owner_id = ${userId}`) },
    { table: 'user_summaries', sql: (userId) => sql`DELETE FROM user_summaries WHERE user_id = ${userId}` },
  ];

  /** `table` and `key` are identifiers from `steps`, never input. */
  private batch(table: string, key: string, where: Sql): Sql {
    return sql`DELETE FROM ${raw(table)} WHERE ${raw(key)} IN (SELECT ${raw(key)} FROM ${raw(table)} WHERE ${where} LIMIT ${DELETION_BATCH})`;
  }

  /** The tables of `steps` this database has (webhooks came later: an older schema lacks them). */
  async existingTables(db: SqlExecutor): Promise<Set<string>> {
    const tables = this.steps.map((s) => s.table);
    const rows = await db.$queryRaw<Array<{ name: string }>>(
      sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY(${tables}::text[])`,
    );
    return new Set(rows.map((r) => r.name));
  }

  /**
   * Published events naming them (a Notification record carries its actor's username in `user`)
   * among the OUTBOX_SCAN outbox rows after `afterSeq` in commit order (a keyset on `seq`: one
   * pass over the outbox, not a scan of the whole table per batch); unpublished ones are the relay's.
   */
  async publishedEventsBatch(db: SqlExecutor, userId: number, afterSeq: bigint | undefined): Promise<{ removed: number; next: bigint | null }> {
    const [row] = await db.$queryRaw<Array<{ scanned: number; last: bigint | null; removed: number }>>(
      sql`WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > ${afterSeq ?? 0n} ORDER BY seq LIMIT ${OUTBOX_SCAN}),
            d AS (DELETE FROM outbox_event o USING s
                   WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                     AND ${userId}::int::text IN (s.payload->'data'->>'recipientId', s.payload->'data'->'notification'->'user'->>'id')
                  RETURNING 1)
       SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`,
    );
    return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
  }

  /**
   * Every step (of the tables this database has) in batches, each in its own transaction, until
   * it removes nothing (`removeInBatches`); the published events before the user copy.
   */
  async removeAll(db: TransactionalClient, userId: number, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<void> {
    const tables = await this.existingTables(db);
    const removal = (name: string) => ({ name: `notification.${name}`, logger, context: { userId } });
    for (const step of this.steps) {
      if (!tables.has(step.table)) continue;
      if (step.table === 'user_summaries') {
        await removeInBatches<bigint>((after) => this.publishedEventsBatch(db, userId, after), removal('outbox_event'));
      }
      await removeInBatches(() => db.$transaction((tx) => tx.$executeRaw(step.sql(userId)), TX_OPTIONS), removal(step.table));
    }
  }
}

const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

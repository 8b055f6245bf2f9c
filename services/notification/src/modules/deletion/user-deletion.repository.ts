import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { removeInBatches, type Logger } from '@msp/runtime';

/** Rows per statement (and transaction): small, so no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;
/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

/** JSON fields of a webhook delivery body that name a user (webhooks.consumers.ts). */
const USER_FIELDS = 'userId|ownerId|authorId|trackOwnerId|followerId|followeeId|senderId|recipientId|artistId';

/**
 * ACC-5 in notification: one statement per kind of row, each removing at most DELETION_BATCH
 * rows carrying the deleted user, called in a loop until it removes nothing. Notifications to
 * them and from them (as actor), the 24 h de-duplication keys, preferences, push devices, the
 * copies of their tracks, playlists, follows, blocks and ban, and webhook rows of theirs (grants,
 * apps and endpoints they own, deliveries about them), the published events naming them. Idempotent: re-running removes nothing more.
 */
export class UserDeletionRepository {
  /** The statements in order; each takes the user id as $1. */
  readonly steps: ReadonlyArray<{ table: string; sql: string }> = [
    { table: 'notifications', sql: this.batch('notifications', 'id', 'recipient_id = $1 OR actor_id = $1') },
    { table: 'notification_dedup', sql: this.batch('notification_dedup', 'ctid', 'recipient_id = $1 OR actor_id = $1') },
    { table: 'notification_preferences', sql: 'DELETE FROM notification_preferences WHERE user_id = $1' },
    { table: 'device_tokens', sql: this.batch('device_tokens', 'id', 'user_id = $1') },
    { table: 'track_refs', sql: this.batch('track_refs', 'track_id', 'artist_id = $1') },
    { table: 'playlist_refs', sql: this.batch('playlist_refs', 'playlist_id', 'owner_id = $1') },
    { table: 'follows', sql: this.batch('follows', 'ctid', 'follower_id = $1 OR followee_id = $1') },
    { table: 'blocks', sql: this.batch('blocks', 'ctid', 'blocker_id = $1 OR blocked_id = $1') },
    { table: 'banned_users', sql: 'DELETE FROM banned_users WHERE user_id = $1' },
    { table: 'webhook_grants', sql: this.batch('webhook_grants', 'grant_id', 'user_id = $1') },
    {
      table: 'webhook_deliveries',
      sql: this.batch(
        'webhook_deliveries',
        'id',
        `resource_key = 'user:' || $1::int::text OR body ~ ('"(${USER_FIELDS})":' || $1::int::text || '[,}]')
         OR endpoint_id IN (SELECT id FROM webhook_endpoints WHERE owner_id = $1::int)`,
      ),
    },
    { table: 'webhook_endpoints', sql: this.batch('webhook_endpoints', 'id', 'owner_id = $1') },
    { table: 'webhook_apps', sql: this.batch('webhook_apps', 'app_id', 'owner_id = $1') },
    { table: 'user_summaries', sql: 'DELETE FROM user_summaries WHERE user_id = $1' },
  ];

  private batch(table: string, key: string, where: string): string {
    return `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${DELETION_BATCH})`;
  }

  /** The tables of `steps` this database has (webhooks came later: an older schema lacks them). */
  async existingTables(db: SqlExecutor): Promise<Set<string>> {
    const rows = await db.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY($1::text[])`,
      this.steps.map((s) => s.table),
    );
    return new Set(rows.map((r) => r.name));
  }

  /**
   * Published events naming them (a Notification record carries its actor's username in `user`)
   * among the OUTBOX_SCAN outbox rows after `afterSeq` in commit order (a keyset on `seq`: one
   * pass over the outbox, not a scan of the whole table per batch); unpublished ones are the relay's.
   */
  async publishedEventsBatch(db: SqlExecutor, userId: number, afterSeq: bigint | undefined): Promise<{ removed: number; next: bigint | null }> {
    const [row] = await db.$queryRawUnsafe<Array<{ scanned: number; last: bigint | null; removed: number }>>(
      `WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > $2 ORDER BY seq LIMIT ${OUTBOX_SCAN}),
            d AS (DELETE FROM outbox_event o USING s
                   WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                     AND $1::int::text IN (s.payload->'data'->>'recipientId', s.payload->'data'->'notification'->'user'->>'id')
                  RETURNING 1)
       SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`,
      userId,
      afterSeq ?? 0n,
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
      await removeInBatches(() => db.$transaction((tx) => tx.$executeRawUnsafe(step.sql, userId), TX_OPTIONS), removal(step.table));
    }
  }
}

const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

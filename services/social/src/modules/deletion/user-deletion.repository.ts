import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { BanCountsRepository, type Recounted } from '../users/ban-counts.repository.js';

/** Rows per transaction: small enough that no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;
/** Comments take their replies with them, so fewer per transaction. */
export const COMMENT_BATCH = 100;
/** The user's own tracks and playlists: each takes others' likes, reposts and comments with it. */
export const OWNED_BATCH = 20;

const EMPTY = (): Recounted => ({ tracks: [], playlists: [], users: [] });

type Engagement = { table: 'track_likes' | 'track_reposts'; target: 'track' } | { table: 'playlist_likes' | 'playlist_reposts'; target: 'playlist' };

export const ENGAGEMENT_TABLES: readonly Engagement[] = [
  { table: 'track_likes', target: 'track' },
  { table: 'track_reposts', target: 'track' },
  { table: 'playlist_likes', target: 'playlist' },
  { table: 'playlist_reposts', target: 'playlist' },
];

/**
 * ACC-5 in social: removes a deleted user's rows one batch per call (each call is meant to run in
 * its own transaction), recounting the counters of others' content and users the removed rows
 * contributed to, under those counters' row locks taken first and in id order (the order the
 * increments use, so no deadlock and no increment slips between). Every method answers how many
 * rows it removed (0 = that kind is done) and the recounted values to publish.
 */
export class UserDeletionRepository<Tx extends SqlExecutor = SqlExecutor> {
  private readonly counts = new BanCountsRepository();

  constructor(private readonly db: TransactionalClient<Tx>) {}

  /** One batch: the methods given `tx` and the outbox rows commit or roll back together. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.$transaction(work, { maxWait: 10_000, timeout: 15_000 });
  }

  /** Likes and reposts the user gave: the targets' counts are recounted. */
  async engagementBatch(tx: SqlExecutor, userId: number, kind: Engagement): Promise<{ removed: number; recounted: Recounted }> {
    const column = kind.target === 'track' ? 'track_id' : 'playlist_id';
    const refs = kind.target === 'track' ? 'track_refs' : 'playlist_refs';
    const rows = await tx.$queryRawUnsafe<Array<{ id: number }>>(
      `SELECT ${column} AS id FROM ${kind.table} WHERE user_id = $1 ORDER BY ${column} LIMIT ${DELETION_BATCH}`,
      userId,
    );
    if (rows.length === 0) return { removed: 0, recounted: EMPTY() };
    const ids = rows.map((r) => r.id);
    await tx.$queryRawUnsafe(`SELECT 1 FROM ${refs} WHERE ${column} = ANY($1::int[]) ORDER BY ${column} FOR UPDATE`, ids);
    const removed = await tx.$executeRawUnsafe(`DELETE FROM ${kind.table} WHERE user_id = $1 AND ${column} = ANY($2::int[])`, userId, ids);
    const recounted = EMPTY();
    if (kind.target === 'track') recounted.tracks = await this.counts.recountTracks(tx, ids);
    else recounted.playlists = await this.counts.recountPlaylists(tx, ids);
    return { removed, recounted };
  }

  /**
   * The user's comments and replies. A removed comment takes the replies under it with it (the
   * foreign key cascades), as when its author deletes it (CMT); the tracks' commentCount and the
   * replyCount of the comments the user replied to are recounted.
   */
  async commentsBatch(tx: SqlExecutor, userId: number): Promise<{ removed: number; recounted: Recounted }> {
    const rows = await tx.$queryRawUnsafe<Array<{ id: number; trackId: number; parentId: number | null }>>(
      `SELECT id, track_id AS "trackId", reply_to_comment_id AS "parentId" FROM comments WHERE user_id = $1 ORDER BY id LIMIT ${COMMENT_BATCH}`,
      userId,
    );
    if (rows.length === 0) return { removed: 0, recounted: EMPTY() };
    const trackIds = [...new Set(rows.map((r) => r.trackId))];
    // The order of a comment insert: the track's counter row, then the parent comment.
    await tx.$queryRawUnsafe(`SELECT 1 FROM track_refs WHERE track_id = ANY($1::int[]) ORDER BY track_id FOR UPDATE`, trackIds);
    const removed = await tx.$executeRawUnsafe(
      'DELETE FROM comments WHERE id = ANY($1::int[])',
      rows.map((r) => r.id),
    );
    await this.counts.recountReplies(
      tx,
      rows.flatMap((r) => (r.parentId === null ? [] : [r.parentId])),
    );
    return { removed, recounted: { tracks: await this.counts.recountTracks(tx, trackIds), playlists: [], users: [] } };
  }

  /** Follows both ways: the other users' follower or following counts are recounted. */
  async followsBatch(tx: SqlExecutor, userId: number): Promise<{ removed: number; recounted: Recounted }> {
    const rows = await tx.$queryRawUnsafe<Array<{ followerId: number; followeeId: number }>>(
      `SELECT follower_id AS "followerId", followee_id AS "followeeId" FROM follows
        WHERE follower_id = $1 OR followee_id = $1 ORDER BY follower_id, followee_id LIMIT ${DELETION_BATCH}`,
      userId,
    );
    if (rows.length === 0) return { removed: 0, recounted: EMPTY() };
    const others = [...new Set(rows.map((r) => (r.followerId === userId ? r.followeeId : r.followerId)))];
    await tx.$queryRawUnsafe(`SELECT 1 FROM user_summaries WHERE user_id = ANY($1::int[]) ORDER BY user_id FOR UPDATE`, [...others, userId]);
    const removed = await tx.$executeRawUnsafe(
      `DELETE FROM follows f USING unnest($1::int[], $2::int[]) AS d(follower_id, followee_id)
        WHERE f.follower_id = d.follower_id AND f.followee_id = d.followee_id`,
      rows.map((r) => r.followerId),
      rows.map((r) => r.followeeId),
    );
    return { removed, recounted: { tracks: [], playlists: [], users: await this.counts.recountUsers(tx, others) } };
  }

  /**
   * A batch of the user's own tracks (catalog's copies keyed by them) with everyone's likes,
   * reposts and comments on them; nothing of others is recounted (the tracks are gone).
   */
  async ownTracksBatch(tx: SqlExecutor, userId: number): Promise<number> {
    const rows = await tx.$queryRawUnsafe<Array<{ id: number }>>(
      `SELECT track_id AS id FROM track_refs WHERE artist_id = $1 ORDER BY track_id LIMIT ${OWNED_BATCH} FOR UPDATE`,
      userId,
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    await tx.$executeRawUnsafe('DELETE FROM track_likes WHERE track_id = ANY($1::int[])', ids);
    await tx.$executeRawUnsafe('DELETE FROM track_reposts WHERE track_id = ANY($1::int[])', ids);
    // Replies first is not needed: the parent's removal cascades to them.
    await tx.$executeRawUnsafe('DELETE FROM comments WHERE track_id = ANY($1::int[])', ids);
    return tx.$executeRawUnsafe('DELETE FROM track_refs WHERE track_id = ANY($1::int[])', ids);
  }

  /** The same for the user's own playlists. */
  async ownPlaylistsBatch(tx: SqlExecutor, userId: number): Promise<number> {
    const rows = await tx.$queryRawUnsafe<Array<{ id: number }>>(
      `SELECT playlist_id AS id FROM playlist_refs WHERE owner_id = $1 ORDER BY playlist_id LIMIT ${OWNED_BATCH} FOR UPDATE`,
      userId,
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    await tx.$executeRawUnsafe('DELETE FROM playlist_likes WHERE playlist_id = ANY($1::int[])', ids);
    await tx.$executeRawUnsafe('DELETE FROM playlist_reposts WHERE playlist_id = ANY($1::int[])', ids);
    return tx.$executeRawUnsafe('DELETE FROM playlist_refs WHERE playlist_id = ANY($1::int[])', ids);
  }

  /** Blocks both ways (nothing counts them). */
  blocksBatch(tx: SqlExecutor, userId: number): Promise<number> {
    return tx.$executeRawUnsafe(
      `DELETE FROM blocks WHERE ctid IN (SELECT ctid FROM blocks WHERE blocker_id = $1 OR blocked_id = $1 LIMIT ${DELETION_BATCH})`,
      userId,
    );
  }

  /**
   * Reports the user filed and reports about them or their content (docs/account-control.md):
   * both carry their id and name, and what a report about them points at is gone.
   */
  reportsBatch(tx: SqlExecutor, userId: number): Promise<number> {
    return tx.$executeRawUnsafe(
      `DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE reporter_id = $1 OR target_user_id = $1 LIMIT ${DELETION_BATCH})`,
      userId,
    );
  }

  /**
   * Published events naming the user (a `social.comment.added.v1` carries the comment's text);
   * unpublished ones are left to the relay, and the relay's retention removes them later.
   */
  publishedEventsBatch(tx: SqlExecutor, userId: number): Promise<number> {
    const fields = ['userId', 'authorId', 'followerId', 'followeeId', 'blockerId', 'blockedId', 'ownerId', 'trackOwnerId', 'parentAuthorId'];
    return tx.$executeRawUnsafe(
      `DELETE FROM outbox_event WHERE id IN (
         SELECT id FROM outbox_event
          WHERE published_at IS NOT NULL AND $1::int::text IN (${fields.map((f) => `payload->'data'->>'${f}'`).join(', ')})
          LIMIT ${DELETION_BATCH})`,
      userId,
    );
  }

  /** Last: the hiding row and social's copy of the user (with their counts). */
  async finish(tx: SqlExecutor, userId: number): Promise<void> {
    await tx.$executeRawUnsafe('DELETE FROM banned_users WHERE user_id = $1', userId);
    await tx.$executeRawUnsafe('DELETE FROM user_summaries WHERE user_id = $1', userId);
  }
}

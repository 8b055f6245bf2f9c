import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { BanCountsRepository, type Recounted } from '../users/ban-counts.repository.js';

/** Rows per transaction: small enough that no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;
/** Comments take their replies with them, so fewer per transaction. */
export const COMMENT_BATCH = 100;
/** The user's own tracks and playlists per transaction, once the rows naming them are gone. */
export const OWNED_BATCH = 20;
/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

const EMPTY = (): Recounted => ({ tracks: [], playlists: [], users: [] });

type Engagement = { table: 'track_likes' | 'track_reposts'; target: 'track' } | { table: 'playlist_likes' | 'playlist_reposts'; target: 'playlist' };

/** Others' rows on the user's own tracks and playlists, by the owner column of the copy they name. */
const OWNED_ENGAGEMENT = [
  { table: 'track_likes', column: 'track_id', refs: 'track_refs', owner: 'artist_id' },
  { table: 'track_reposts', column: 'track_id', refs: 'track_refs', owner: 'artist_id' },
  { table: 'comments', column: 'track_id', refs: 'track_refs', owner: 'artist_id' },
  { table: 'playlist_likes', column: 'playlist_id', refs: 'playlist_refs', owner: 'owner_id' },
  { table: 'playlist_reposts', column: 'playlist_id', refs: 'playlist_refs', owner: 'owner_id' },
] as const;

/** The counters a user's rows count in, by kind, in the order the ban recounts them (ids; the user as $1). */
const RECOUNT_TARGETS = {
  tracks: `SELECT track_id AS id FROM track_likes WHERE user_id = $1
           UNION SELECT track_id FROM track_reposts WHERE user_id = $1 UNION SELECT track_id FROM comments WHERE user_id = $1`,
  replies: `SELECT reply_to_comment_id AS id FROM comments WHERE user_id = $1 AND reply_to_comment_id IS NOT NULL`,
  playlists: `SELECT playlist_id AS id FROM playlist_likes WHERE user_id = $1 UNION SELECT playlist_id FROM playlist_reposts WHERE user_id = $1`,
  users: `SELECT followee_id AS id FROM follows WHERE follower_id = $1 UNION SELECT follower_id FROM follows WHERE followee_id = $1 UNION SELECT $1::int`,
} as const;

export type RecountKind = keyof typeof RECOUNT_TARGETS;
export const RECOUNT_KINDS = Object.keys(RECOUNT_TARGETS) as RecountKind[];

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
   * Others' likes, reposts and comments on the user's own tracks and playlists, at most
   * DELETION_BATCH rows of one table per call (a popular track can have thousands): nothing of
   * others is recounted (those tracks and playlists go next). A comment removed here takes its
   * replies with it (the foreign key cascades).
   */
  async ownedEngagementBatch(tx: SqlExecutor, userId: number): Promise<number> {
    for (const { table, column, refs, owner } of OWNED_ENGAGEMENT) {
      const removed = await tx.$executeRawUnsafe(
        `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
           SELECT e.ctid FROM ${table} e JOIN ${refs} r ON r.${column} = e.${column} WHERE r.${owner} = $1 LIMIT ${DELETION_BATCH}))`,
        userId,
      );
      if (removed > 0) return removed;
    }
    return 0;
  }

  /**
   * A batch of the user's own tracks (catalog's copies keyed by them), with what is left naming
   * them (nothing, after `ownedEngagementBatch`, unless a row arrived meanwhile); nothing of
   * others is recounted (the tracks are gone).
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
   * Published events naming the user (a `social.comment.added.v1` carries the comment's text)
   * among the OUTBOX_SCAN outbox rows after `afterSeq` in commit order: one pass over the outbox
   * (a keyset on `seq`), not a scan of the whole table per batch. Answers the rows removed and
   * the last `seq` looked at (null once the end is reached). Unpublished events are left to the
   * relay, and the relay's retention removes them later.
   */
  async publishedEventsBatch(tx: SqlExecutor, userId: number, afterSeq: bigint | undefined): Promise<{ removed: number; next: bigint | null }> {
    const fields = ['userId', 'authorId', 'followerId', 'followeeId', 'blockerId', 'blockedId', 'ownerId', 'trackOwnerId', 'parentAuthorId'];
    const [row] = await tx.$queryRawUnsafe<Array<{ scanned: number; last: bigint | null; removed: number }>>(
      `WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > $2 ORDER BY seq LIMIT ${OUTBOX_SCAN}),
            d AS (DELETE FROM outbox_event o USING s
                   WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                     AND $1::int::text IN (${fields.map((f) => `s.payload->'data'->>'${f}'`).join(', ')})
                  RETURNING 1)
       SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`,
      userId,
      afterSeq ?? 0n,
    );
    return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
  }

  /**
   * Whether the counters the user's rows count in must be recounted after ACC-3 hid them (hidden
   * for the deletion alone: a ban already left them out) or after ACC-4 showed them again (no
   * longer hidden at all). Asked again on a redelivery, so a recount cut short is done again.
   */
  async countsFollowHiding(tx: SqlExecutor, userId: number, hidden: boolean): Promise<boolean> {
    const [row] = await tx.$queryRawUnsafe<Array<{ pending: boolean; banned: boolean }>>(
      `SELECT deletion_pending AS pending, is_banned AS banned FROM banned_users WHERE user_id = $1`,
      userId,
    );
    return hidden ? row?.pending === true && !row.banned : row === undefined;
  }

  /**
   * One batch of the recount that follows ACC-3's hiding or ACC-4's showing: the next
   * RECOUNT_BATCH counters of one kind the user's rows count in (tracks they liked, reposted or
   * commented on; comments they replied to; playlists they liked or reposted; users they follow
   * or who follow them, and themselves), after `after` in id order (a keyset), recounted under
   * their row locks (`BanCountsRepository`, as the ban does for all at once). Answers how many
   * were recounted, the cursor (null after the last) and the values to publish.
   */
  async hidingRecountBatch(
    tx: SqlExecutor,
    userId: number,
    kind: RecountKind,
    after: number | undefined,
  ): Promise<{ removed: number; next: number | null; recounted: Recounted }> {
    const rows = await tx.$queryRawUnsafe<Array<{ id: number }>>(
      `SELECT id FROM (${RECOUNT_TARGETS[kind]}) t WHERE id > $2 ORDER BY id LIMIT ${DELETION_BATCH}`,
      userId,
      after ?? 0,
    );
    const ids = rows.map((r) => r.id);
    const next = rows.length === DELETION_BATCH ? ids.at(-1)! : null;
    const recounted = EMPTY();
    if (kind === 'tracks') recounted.tracks = await this.counts.recountTracks(tx, ids);
    else if (kind === 'replies') await this.counts.recountReplies(tx, ids);
    else if (kind === 'playlists') recounted.playlists = await this.counts.recountPlaylists(tx, ids);
    else recounted.users = await this.counts.recountUsers(tx, ids);
    return { removed: ids.length, next, recounted };
  }

  /** Last: the hiding row and social's copy of the user (with their counts). */
  async finish(tx: SqlExecutor, userId: number): Promise<void> {
    await tx.$executeRawUnsafe('DELETE FROM banned_users WHERE user_id = $1', userId);
    await tx.$executeRawUnsafe('DELETE FROM user_summaries WHERE user_id = $1', userId);
  }
}

import { join, raw, sql } from '@msp/db';
import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { BanCountsRepository, type Recounted } from '../users/ban-counts.repository.js';
import { bannedSql, col, countedCommentSql } from '../users/user-sql.js';

/** Rows per transaction: small enough that no other user's write waits long on a lock. */
export const DELETION_BATCH = 300;
/**
 * Counters one transaction locks and recounts at most (ACC-3's and ACC-4's recount, and a removal
 * of a user not hidden): the locks are held while the rows behind them are counted, so a batch
 * must stay short for the likes and comments of other users waiting on them (docs/account-control.md).
 */
export const RECOUNT_BATCH = 100;
/** Comments take their replies with them, so fewer per transaction. */
export const COMMENT_BATCH = 100;
/** The user's own tracks and playlists per transaction, once the rows naming them are gone. */
export const OWNED_BATCH = 20;
/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

const EMPTY = (): Recounted => ({ tracks: [], playlists: [], users: [] });

type Engagement = { table: 'track_likes' | 'track_reposts'; target: 'track' } | { table: 'playlist_likes' | 'playlist_reposts'; target: 'playlist' };

/** Others' rows on the user's own tracks and playlists, by the owner column of the copy they name (identifiers). */
const OWNED_ENGAGEMENT = [
  { table: raw('track_likes'), column: raw('track_id'), refs: raw('track_refs'), owner: raw('artist_id') },
  { table: raw('track_reposts'), column: raw('track_id'), refs: raw('track_refs'), owner: raw('artist_id') },
  { table: raw('comments'), column: raw('track_id'), refs: raw('track_refs'), owner: raw('artist_id') },
  { table: raw('playlist_likes'), column: raw('playlist_id'), refs: raw('playlist_refs'), owner: raw('owner_id') },
  { table: raw('playlist_reposts'), column: raw('playlist_id'), refs: raw('playlist_refs'), owner: raw('owner_id') },
] as const;

/** The counters a user's rows count in, by kind, in the order the ban recounts them (ids of the user's rows). */
const RECOUNT_TARGETS = {
  tracks: (userId: number) => sql`SELECT track_id AS id FROM track_likes WHERE user_id = ${userId}
           UNION SELECT track_id FROM track_reposts WHERE user_id = ${userId} UNION SELECT track_id FROM comments WHERE user_id = ${userId}`,
  replies: (userId: number) => sql`SELECT reply_to_comment_id AS id FROM comments WHERE user_id = ${userId} AND reply_to_comment_id IS NOT NULL`,
  playlists: (userId: number) =>
    sql`SELECT playlist_id AS id FROM playlist_likes WHERE user_id = ${userId} UNION SELECT playlist_id FROM playlist_reposts WHERE user_id = ${userId}`,
  users: (userId: number) =>
    sql`SELECT followee_id AS id FROM follows WHERE follower_id = ${userId} UNION SELECT follower_id FROM follows WHERE followee_id = ${userId} UNION SELECT ${userId}::int`,
} as const;

export type RecountKind = keyof typeof RECOUNT_TARGETS;
export const RECOUNT_KINDS = Object.keys(RECOUNT_TARGETS) as RecountKind[];

export const ENGAGEMENT_TABLES: readonly Engagement[] = [
  { table: 'track_likes', target: 'track' },
  { table: 'track_reposts', target: 'track' },
  { table: 'playlist_likes', target: 'playlist' },
  { table: 'playlist_reposts', target: 'playlist' },
];

const notBanned = (user: string) => sql`NOT ${bannedSql(col(user))}`;

/**
 * Read-only checks, one statement each, of which of the given counters differ from their rows
 * (the counts the recounts of BanCountsRepository would write; no lock taken). A statement sees
 * one snapshot, in which every committed increment has both its row and its count.
 */
const DRIFTED = {
  tracks: (ids: readonly number[]) => sql`SELECT r.track_id AS id FROM track_refs r WHERE r.track_id = ANY(${ids}::int[])
             AND (r.like_count, r.repost_count, r.comment_count) IS DISTINCT FROM (
                 (SELECT count(*)::int FROM track_likes l WHERE l.track_id = r.track_id AND ${notBanned('l.user_id')}),
                 (SELECT count(*)::int FROM track_reposts p WHERE p.track_id = r.track_id AND ${notBanned('p.user_id')}),
                 (SELECT count(*)::int FROM comments c WHERE c.track_id = r.track_id AND ${countedCommentSql('c')}))`,
  replies: (ids: readonly number[]) => sql`SELECT p.id FROM comments p WHERE p.id = ANY(${ids}::int[])
             AND p.reply_count <> (SELECT count(*)::int FROM comments c WHERE c.reply_to_comment_id = p.id AND ${notBanned('c.user_id')})`,
  playlists: (ids: readonly number[]) => sql`SELECT r.playlist_id AS id FROM playlist_refs r WHERE r.playlist_id = ANY(${ids}::int[])
             AND (r.like_count, r.repost_count) IS DISTINCT FROM (
                 (SELECT count(*)::int FROM playlist_likes l WHERE l.playlist_id = r.playlist_id AND ${notBanned('l.user_id')}),
                 (SELECT count(*)::int FROM playlist_reposts p WHERE p.playlist_id = r.playlist_id AND ${notBanned('p.user_id')}))`,
  users: (ids: readonly number[]) => sql`SELECT u.user_id AS id FROM user_summaries u WHERE u.user_id = ANY(${ids}::int[])
             AND (u.follower_count, u.following_count) IS DISTINCT FROM (
                 (SELECT count(*)::int FROM follows f WHERE f.followee_id = u.user_id AND ${notBanned('f.follower_id')}),
                 (SELECT count(*)::int FROM follows f WHERE f.follower_id = u.user_id AND ${notBanned('f.followee_id')}))`,
} as const;

/**
 * ACC-5 in social: removes a deleted user's rows one batch per call (each call is meant to run in
 * its own transaction). Every method answers how many rows it removed (0 = that kind is done) and
 * the recounted values to publish.
 *
 * What is recounted: while the user is hidden (ACC-3's `deletion_pending`, or a ban: their
 * `banned_users` row, the case of every deletion that followed its scheduling), no count of
 * others includes their likes, reposts, follows, comments, replies or the replies under their
 * comments — ACC-3's (or the ban's) recount left them out and the increments skip them — so
 * removing those rows changes no count: a batch only checks, without locks, that the counters it
 * touched equal their rows, and recounts the few that do not (a recount cut short, e.g. ACC-3's
 * event still being retried). A user not hidden (a removal that did not follow its scheduling)
 * has every counter of the batch recounted from the rows, under the counters' row locks taken
 * first and in id order (the order the increments use, so no deadlock and no increment slips
 * between).
 */
export class UserDeletionRepository<Tx extends SqlExecutor = SqlExecutor> {
  private readonly counts = new BanCountsRepository();

  constructor(private readonly db: TransactionalClient<Tx>) {}

  /** One batch: the methods given `tx` and the outbox rows commit or roll back together. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.$transaction(work, { maxWait: 10_000, timeout: 15_000 });
  }

  /**
   * Whether the user is hidden (a `banned_users` row: pending deletion or ban), so that their rows
   * count nowhere. The row is share-locked until the batch commits: an unban cannot make the
   * user's rows count again (and recount them) between this answer and the batch's removal.
   */
  async isHidden(tx: SqlExecutor, userId: number): Promise<boolean> {
    const rows = await tx.$queryRaw<Array<{ one: number }>>(sql`SELECT 1 AS one FROM banned_users WHERE user_id = ${userId} FOR SHARE`);
    return rows.length > 0;
  }

  /** Of the given counters of one kind, those that differ from their rows (DRIFTED; no lock). */
  async drifted(tx: SqlExecutor, kind: RecountKind, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await tx.$queryRaw<Array<{ id: number }>>(sql`${DRIFTED[kind]([...new Set(ids)])} ORDER BY 1`);
    return rows.map((r) => r.id);
  }

  /** The counters of one kind a batch must recount: all of them, or only the drifted ones while the user is hidden. */
  private toRecount(tx: SqlExecutor, hidden: boolean, kind: RecountKind, ids: readonly number[]): Promise<readonly number[]> {
    return hidden ? this.drifted(tx, kind, ids) : Promise.resolve(ids);
  }

  /** Likes and reposts the user gave: the targets' counts are recounted (see the class: only drifted ones while hidden). */
  async engagementBatch(tx: SqlExecutor, userId: number, kind: Engagement): Promise<{ removed: number; recounted: Recounted }> {
    // Identifiers from the fixed ENGAGEMENT_TABLES.
    const table = raw(kind.table);
    const column = raw(kind.target === 'track' ? 'track_id' : 'playlist_id');
    const refs = raw(kind.target === 'track' ? 'track_refs' : 'playlist_refs');
    const hidden = await this.isHidden(tx, userId);
    const rows = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT ${column} AS id FROM ${table} WHERE user_id = ${userId} ORDER BY ${column} LIMIT ${hidden ? DELETION_BATCH : RECOUNT_BATCH}`,
    );
    if (rows.length === 0) return { removed: 0, recounted: EMPTY() };
    const ids = rows.map((r) => r.id);
    // A hidden user's rows count nowhere: no counter row is locked for their removal.
    if (!hidden) await tx.$queryRaw(sql`SELECT 1 FROM ${refs} WHERE ${column} = ANY(${ids}::int[]) ORDER BY ${column} FOR UPDATE`);
    const removed = await tx.$executeRaw(sql`DELETE FROM ${table} WHERE user_id = ${userId} AND ${column} = ANY(${ids}::int[])`);
    const recounted = EMPTY();
    if (kind.target === 'track') recounted.tracks = await this.counts.recountTracks(tx, await this.toRecount(tx, hidden, 'tracks', ids));
    else recounted.playlists = await this.counts.recountPlaylists(tx, await this.toRecount(tx, hidden, 'playlists', ids));
    return { removed, recounted };
  }

  /**
   * The user's comments and replies. A removed comment takes the replies under it with it (the
   * foreign key cascades), as when its author deletes it (CMT); the tracks' commentCount and the
   * replyCount of the comments the user replied to are recounted.
   */
  async commentsBatch(tx: SqlExecutor, userId: number): Promise<{ removed: number; recounted: Recounted }> {
    const hidden = await this.isHidden(tx, userId);
    const rows = await tx.$queryRaw<Array<{ id: number; trackId: number; parentId: number | null }>>(
      sql`SELECT id, track_id AS "trackId", reply_to_comment_id AS "parentId" FROM comments WHERE user_id = ${userId} ORDER BY id LIMIT ${COMMENT_BATCH}`,
    );
    if (rows.length === 0) return { removed: 0, recounted: EMPTY() };
    const trackIds = [...new Set(rows.map((r) => r.trackId))];
    const parentIds = rows.flatMap((r) => (r.parentId === null ? [] : [r.parentId]));
    // The order of a comment insert: the track's counter row, then the parent comment.
    if (!hidden) await tx.$queryRaw(sql`SELECT 1 FROM track_refs WHERE track_id = ANY(${trackIds}::int[]) ORDER BY track_id FOR UPDATE`);
    const removed = await tx.$executeRaw(sql`DELETE FROM comments WHERE id = ANY(${rows.map((r) => r.id)}::int[])`);
    // Tracks first, then the parents (the lock order of an insert); neither count reads the other.
    const tracks = await this.counts.recountTracks(tx, await this.toRecount(tx, hidden, 'tracks', trackIds));
    await this.counts.recountReplies(tx, await this.toRecount(tx, hidden, 'replies', parentIds));
    return { removed, recounted: { tracks, playlists: [], users: [] } };
  }

  /** Follows both ways: the other users' follower or following counts are recounted. */
  async followsBatch(tx: SqlExecutor, userId: number): Promise<{ removed: number; recounted: Recounted }> {
    const hidden = await this.isHidden(tx, userId);
    const rows = await tx.$queryRaw<Array<{ followerId: number; followeeId: number }>>(
      sql`SELECT follower_id AS "followerId", followee_id AS "followeeId" FROM follows
        WHERE follower_id = ${userId} OR followee_id = ${userId} ORDER BY follower_id, followee_id LIMIT ${hidden ? DELETION_BATCH : RECOUNT_BATCH}`,
    );
    if (rows.length === 0) return { removed: 0, recounted: EMPTY() };
    const others = [...new Set(rows.map((r) => (r.followerId === userId ? r.followeeId : r.followerId)))];
    if (!hidden) await tx.$queryRaw(sql`SELECT 1 FROM user_summaries WHERE user_id = ANY(${[...others, userId]}::int[]) ORDER BY user_id FOR UPDATE`);
    const followers = rows.map((r) => r.followerId);
    const followees = rows.map((r) => r.followeeId);
    const removed = await tx.$executeRaw(
      sql`DELETE FROM follows f USING unnest(${followers}::int[], ${followees}::int[]) AS d(follower_id, followee_id)
        WHERE f.follower_id = d.follower_id AND f.followee_id = d.followee_id`,
    );
    const users = await this.counts.recountUsers(tx, await this.toRecount(tx, hidden, 'users', others));
    return { removed, recounted: { tracks: [], playlists: [], users } };
  }

  /**
   * Others' likes, reposts and comments on the user's own tracks and playlists, at most
   * DELETION_BATCH rows of one table per call (a popular track can have thousands): nothing of
   * others is recounted (those tracks and playlists go next). A comment removed here takes its
   * replies with it (the foreign key cascades).
   */
  async ownedEngagementBatch(tx: SqlExecutor, userId: number): Promise<number> {
    for (const { table, column, refs, owner } of OWNED_ENGAGEMENT) {
      const removed = await tx.$executeRaw(
        sql`DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
           SELECT e.ctid FROM ${table} e JOIN ${refs} r ON r.${column} = e.${column} WHERE r.${owner} = ${userId} LIMIT ${DELETION_BATCH}))`,
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
    const rows = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT track_id AS id FROM track_refs WHERE artist_id = ${userId} ORDER BY track_id LIMIT ${OWNED_BATCH} FOR UPDATE`,
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    await tx.$executeRaw(sql`DELETE FROM track_likes WHERE track_id = ANY(${ids}::int[])`);
    await tx.$executeRaw(sql`DELETE FROM track_reposts WHERE track_id = ANY(${ids}::int[])`);
    // Replies first is not needed: the parent's removal cascades to them.
    await tx.$executeRaw(sql`DELETE FROM comments WHERE track_id = ANY(${ids}::int[])`);
    return tx.$executeRaw(sql`DELETE FROM track_refs WHERE track_id = ANY(${ids}::int[])`);
  }

  /** The same for the user's own playlists. */
  async ownPlaylistsBatch(tx: SqlExecutor, userId: number): Promise<number> {
    const rows = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT playlist_id AS id FROM playlist_refs WHERE owner_id = ${userId} ORDER BY playlist_id LIMIT ${OWNED_BATCH} FOR UPDATE`,
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    await tx.$executeRaw(sql`DELETE FROM playlist_likes WHERE playlist_id = ANY(${ids}::int[])`);
    await tx.$executeRaw(sql`DELETE FROM playlist_reposts WHERE playlist_id = ANY(${ids}::int[])`);
    return tx.$executeRaw(sql`DELETE FROM playlist_refs WHERE playlist_id = ANY(${ids}::int[])`);
  }

  /** Blocks both ways (nothing counts them). */
  blocksBatch(tx: SqlExecutor, userId: number): Promise<number> {
    return tx.$executeRaw(
      sql`DELETE FROM blocks WHERE ctid IN (SELECT ctid FROM blocks WHERE blocker_id = ${userId} OR blocked_id = ${userId} LIMIT ${DELETION_BATCH})`,
    );
  }

  /**
   * Reports the user filed and reports about them or their content (docs/account-control.md):
   * both carry their id and name, and what a report about them points at is gone.
   */
  reportsBatch(tx: SqlExecutor, userId: number): Promise<number> {
    return tx.$executeRaw(
      sql`DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE reporter_id = ${userId} OR target_user_id = ${userId} LIMIT ${DELETION_BATCH})`,
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
    // The payload keys are bound as text values: `->> $n::text`.
    const named = join(
      fields.map((f) => sql`s.payload->'data'->>${f}::text`),
      ', ',
    );
    const [row] = await tx.$queryRaw<Array<{ scanned: number; last: bigint | null; removed: number }>>(
      sql`WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > ${afterSeq ?? 0n} ORDER BY seq LIMIT ${OUTBOX_SCAN}),
            d AS (DELETE FROM outbox_event o USING s
                   WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                     AND ${userId}::int::text IN (${named})
                  RETURNING 1)
       SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`,
    );
    return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
  }

  /**
   * Whether the counters the user's rows count in must be recounted after ACC-3 hid them (hidden
   * for the deletion alone: a ban already left them out) or after ACC-4 showed them again (no
   * longer hidden at all). Asked again on a redelivery, so a recount cut short is done again.
   */
  async countsFollowHiding(tx: SqlExecutor, userId: number, hidden: boolean): Promise<boolean> {
    const [row] = await tx.$queryRaw<Array<{ pending: boolean; banned: boolean }>>(
      sql`SELECT deletion_pending AS pending, is_banned AS banned FROM banned_users WHERE user_id = ${userId}`,
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
    const rows = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT id FROM (${RECOUNT_TARGETS[kind](userId)}) t WHERE id > ${after ?? 0} ORDER BY id LIMIT ${RECOUNT_BATCH}`,
    );
    const ids = rows.map((r) => r.id);
    const next = rows.length === RECOUNT_BATCH ? ids.at(-1)! : null;
    const recounted = EMPTY();
    if (kind === 'tracks') recounted.tracks = await this.counts.recountTracks(tx, ids);
    else if (kind === 'replies') await this.counts.recountReplies(tx, ids);
    else if (kind === 'playlists') recounted.playlists = await this.counts.recountPlaylists(tx, ids);
    else recounted.users = await this.counts.recountUsers(tx, ids);
    return { removed: ids.length, next, recounted };
  }

  /** Last: the hiding row and social's copy of the user (with their counts). */
  async finish(tx: SqlExecutor, userId: number): Promise<void> {
    await tx.$executeRaw(sql`DELETE FROM banned_users WHERE user_id = ${userId}`);
    await tx.$executeRaw(sql`DELETE FROM user_summaries WHERE user_id = ${userId}`);
  }
}

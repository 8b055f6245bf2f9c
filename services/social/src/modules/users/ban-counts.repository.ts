import { sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import { bannedSql, col, countedCommentSql } from './user-sql.js';

export interface TrackCounts {
  trackId: number;
  likeCount: number;
  repostCount: number;
  commentCount: number;
}

export interface PlaylistCounts {
  playlistId: number;
  likeCount: number;
  repostCount: number;
}

export interface UserCounts {
  userId: number;
  followerCount: number;
  followingCount: number;
}

export interface Recounted {
  tracks: TrackCounts[];
  playlists: PlaylistCounts[];
  users: UserCounts[];
}

const notBanned = (user: string) => sql`NOT ${bannedSql(col(user))}`;

/**
 * R14 + R9: the counts shown to others leave banned users' likes, reposts, comments and follows
 * out. The increments of engagement, comments and follows skip a banned user's rows; when a ban
 * starts or ends (social's `banned_users` has already changed in the same transaction), this
 * recounts every counter the user's rows contribute to, from the rows themselves:
 *
 * - tracks the user liked, reposted or commented on (like/repost/comment counts; a banned author's
 *   comment hides its replies, so other users' replies to it leave commentCount too),
 * - comments the user replied to (replyCount: replies of non-banned authors),
 * - playlists the user liked or reposted,
 * - the users the user follows and who follow them, and the user (follower/following counts).
 *
 * Each kind is one statement that locks the counter rows in id order (the same rows the
 * increments lock, so no increment slips between the count and its write; ascending order, so no
 * deadlock with them), then one statement that counts and writes only the rows whose value
 * changed, returning every recounted value (changed or not) for the event, so copies heal too.
 * Order of kinds: tracks, comments (as an insert: track row, then the parent), playlists, users.
 * The cost is one index range per counter row (the rows behind it), on the consumer, not on a request.
 */
export class BanCountsRepository {
  async recount(tx: SqlExecutor, userId: number): Promise<Recounted> {
    const tracks = await this.tracks(tx, userId);
    await this.replyCounts(tx, userId);
    const playlists = await this.playlists(tx, userId);
    const users = await this.users(tx, userId);
    return { tracks, playlists, users };
  }

  private async tracks(tx: SqlExecutor, userId: number): Promise<TrackCounts[]> {
    const ids = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT track_id AS id FROM track_likes WHERE user_id = ${userId}
        UNION SELECT track_id FROM track_reposts WHERE user_id = ${userId}
        UNION SELECT track_id FROM comments WHERE user_id = ${userId}`,
    );
    return this.recountTracks(
      tx,
      ids.map((r) => r.id),
    );
  }

  /**
   * The like, repost and comment counts of the given tracks, recounted from the rows under their
   * counter rows' locks (taken here in id order); returns every recounted value. Used by the ban
   * and by the account deletion (ACC-5), which knows the tracks from the rows it removed.
   */
  async recountTracks(tx: SqlExecutor, trackIds: readonly number[]): Promise<TrackCounts[]> {
    if (trackIds.length === 0) return [];
    const locked = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT r.track_id AS id FROM track_refs r WHERE r.track_id = ANY(${[...new Set(trackIds)]}::int[]) ORDER BY r.track_id FOR UPDATE OF r`,
    );
    if (locked.length === 0) return [];
    const ids = locked.map((r) => r.id);
    return tx.$queryRaw<TrackCounts[]>(
      sql`WITH n AS (
         SELECT r.track_id,
                (SELECT count(*)::int FROM track_likes l WHERE l.track_id = r.track_id AND ${notBanned('l.user_id')}) AS likes,
                (SELECT count(*)::int FROM track_reposts p WHERE p.track_id = r.track_id AND ${notBanned('p.user_id')}) AS reposts,
                (SELECT count(*)::int FROM comments c WHERE c.track_id = r.track_id AND ${countedCommentSql('c')}) AS comments
           FROM track_refs r WHERE r.track_id = ANY(${ids}::int[])),
       changed AS (
         UPDATE track_refs r SET like_count = n.likes, repost_count = n.reposts, comment_count = n.comments
           FROM n
          WHERE r.track_id = n.track_id
            AND (r.like_count, r.repost_count, r.comment_count) IS DISTINCT FROM (n.likes, n.reposts, n.comments)
          RETURNING r.track_id)
       SELECT track_id AS "trackId", likes AS "likeCount", reposts AS "repostCount", comments AS "commentCount"
         FROM n ORDER BY track_id`,
    );
  }

  /** replyCount is social's alone (no copy elsewhere), so nothing is returned. */
  private async replyCounts(tx: SqlExecutor, userId: number): Promise<void> {
    const ids = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT DISTINCT reply_to_comment_id AS id FROM comments WHERE user_id = ${userId} AND reply_to_comment_id IS NOT NULL`,
    );
    await this.recountReplies(
      tx,
      ids.map((r) => r.id),
    );
  }

  /** The replyCount of the given comments (those still there), under their row locks in id order. */
  async recountReplies(tx: SqlExecutor, commentIds: readonly number[]): Promise<void> {
    if (commentIds.length === 0) return;
    const locked = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT p.id FROM comments p WHERE p.id = ANY(${[...new Set(commentIds)]}::int[]) ORDER BY p.id FOR UPDATE OF p`,
    );
    if (locked.length === 0) return;
    const ids = locked.map((r) => r.id);
    await tx.$executeRaw(
      sql`WITH n AS (
         SELECT p.id, (SELECT count(*)::int FROM comments c WHERE c.reply_to_comment_id = p.id AND ${notBanned('c.user_id')}) AS replies
           FROM comments p WHERE p.id = ANY(${ids}::int[]))
       UPDATE comments p SET reply_count = n.replies FROM n WHERE p.id = n.id AND p.reply_count <> n.replies`,
    );
  }

  private async playlists(tx: SqlExecutor, userId: number): Promise<PlaylistCounts[]> {
    const ids = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT playlist_id AS id FROM playlist_likes WHERE user_id = ${userId}
        UNION SELECT playlist_id FROM playlist_reposts WHERE user_id = ${userId}`,
    );
    return this.recountPlaylists(
      tx,
      ids.map((r) => r.id),
    );
  }

  /** The like and repost counts of the given playlists, as `recountTracks` does for tracks. */
  async recountPlaylists(tx: SqlExecutor, playlistIds: readonly number[]): Promise<PlaylistCounts[]> {
    if (playlistIds.length === 0) return [];
    const locked = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT r.playlist_id AS id FROM playlist_refs r WHERE r.playlist_id = ANY(${[...new Set(playlistIds)]}::int[]) ORDER BY r.playlist_id FOR UPDATE OF r`,
    );
    if (locked.length === 0) return [];
    const ids = locked.map((r) => r.id);
    return tx.$queryRaw<PlaylistCounts[]>(
      sql`WITH n AS (
         SELECT r.playlist_id,
                (SELECT count(*)::int FROM playlist_likes l WHERE l.playlist_id = r.playlist_id AND ${notBanned('l.user_id')}) AS likes,
                (SELECT count(*)::int FROM playlist_reposts p WHERE p.playlist_id = r.playlist_id AND ${notBanned('p.user_id')}) AS reposts
           FROM playlist_refs r WHERE r.playlist_id = ANY(${ids}::int[])),
       changed AS (
         UPDATE playlist_refs r SET like_count = n.likes, repost_count = n.reposts
           FROM n
          WHERE r.playlist_id = n.playlist_id AND (r.like_count, r.repost_count) IS DISTINCT FROM (n.likes, n.reposts)
          RETURNING r.playlist_id)
       SELECT playlist_id AS "playlistId", likes AS "likeCount", reposts AS "repostCount" FROM n ORDER BY playlist_id`,
    );
  }

  private async users(tx: SqlExecutor, userId: number): Promise<UserCounts[]> {
    const ids = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT followee_id AS id FROM follows WHERE follower_id = ${userId}
        UNION SELECT follower_id FROM follows WHERE followee_id = ${userId}
        UNION SELECT ${userId}::int`,
    );
    return this.recountUsers(
      tx,
      ids.map((r) => r.id),
    );
  }

  /** The follower and following counts of the given users, as `recountTracks` does for tracks. */
  async recountUsers(tx: SqlExecutor, userIds: readonly number[]): Promise<UserCounts[]> {
    if (userIds.length === 0) return [];
    const locked = await tx.$queryRaw<Array<{ id: number }>>(
      sql`SELECT u.user_id AS id FROM user_summaries u WHERE u.user_id = ANY(${[...new Set(userIds)]}::int[]) ORDER BY u.user_id FOR UPDATE OF u`,
    );
    if (locked.length === 0) return [];
    const ids = locked.map((r) => r.id);
    return tx.$queryRaw<UserCounts[]>(
      sql`WITH n AS (
         SELECT u.user_id,
                (SELECT count(*)::int FROM follows f WHERE f.followee_id = u.user_id AND ${notBanned('f.follower_id')}) AS followers,
                (SELECT count(*)::int FROM follows f WHERE f.follower_id = u.user_id AND ${notBanned('f.followee_id')}) AS following
           FROM user_summaries u WHERE u.user_id = ANY(${ids}::int[])),
       changed AS (
         UPDATE user_summaries u SET follower_count = n.followers, following_count = n.following
           FROM n
          WHERE u.user_id = n.user_id AND (u.follower_count, u.following_count) IS DISTINCT FROM (n.followers, n.following)
          RETURNING u.user_id)
       SELECT user_id AS "userId", followers AS "followerCount", following AS "followingCount" FROM n ORDER BY user_id`,
    );
  }
}

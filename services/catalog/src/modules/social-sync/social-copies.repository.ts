import { raw, sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

type TrackCountColumn = 'like_count' | 'repost_count' | 'comment_count';
type PlaylistCountColumn = 'like_count' | 'repost_count';

/** A like ('L') or repost ('R') in catalog's copies (`track_engagements`, `playlist_engagements`). */
export type EngagementKind = 'L' | 'R';

/**
 * Writes of catalog's copies of what social owns, inside the social-sync consumer's transaction:
 * the engagement counts (R9), the track likes, reposts and comments behind trending (DSC-2,
 * DSC-7), and the blocks (R7).
 */
export const socialCopies = {
  async setTrackCount(tx: SqlExecutor, column: TrackCountColumn, trackId: number, count: number): Promise<void> {
    await tx.$executeRaw(sql`UPDATE tracks SET ${raw(column)} = ${count} WHERE id = ${trackId}`);
  },

  async setPlaylistCount(tx: SqlExecutor, column: PlaylistCountColumn, playlistId: number, count: number): Promise<void> {
    await tx.$executeRaw(sql`UPDATE playlists SET ${raw(column)} = ${count} WHERE id = ${playlistId}`);
  },

  /** Copies a like or repost; false when the copy already holds it (a replay). */
  async addEngagement(tx: SqlExecutor, kind: EngagementKind, userId: number, trackId: number, at: Date): Promise<boolean> {
    const added = await tx.$executeRaw(
      sql`INSERT INTO track_engagements (kind, user_id, track_id, created_at) VALUES (${kind}, ${userId}, ${trackId}, ${at.toISOString()}::timestamptz) ON CONFLICT DO NOTHING`,
    );
    return added > 0;
  },

  /** Removes a like or repost; the times of the removed rows (none on a replay). */
  async removeEngagement(tx: SqlExecutor, kind: EngagementKind, userId: number, trackId: number): Promise<Date[]> {
    const removed = await tx.$queryRaw<Array<{ createdAt: Date }>>(
      sql`DELETE FROM track_engagements WHERE kind = ${kind} AND user_id = ${userId} AND track_id = ${trackId} RETURNING created_at AS "createdAt"`,
    );
    return removed.map((row) => new Date(row.createdAt));
  },

  /** Copies a like or repost of a playlist (`playlist_engagements`); a replay changes nothing. */
  async addPlaylistEngagement(tx: SqlExecutor, kind: EngagementKind, userId: number, playlistId: number, at: Date): Promise<void> {
    await tx.$executeRaw(
      sql`INSERT INTO playlist_engagements (kind, user_id, playlist_id, created_at) VALUES (${kind}, ${userId}, ${playlistId}, ${at.toISOString()}::timestamptz)
          ON CONFLICT DO NOTHING`,
    );
  },

  /** Removes a like or repost of a playlist; a replay changes nothing. */
  async removePlaylistEngagement(tx: SqlExecutor, kind: EngagementKind, userId: number, playlistId: number): Promise<void> {
    await tx.$executeRaw(sql`DELETE FROM playlist_engagements WHERE kind = ${kind} AND user_id = ${userId} AND playlist_id = ${playlistId}`);
  },

  /** Copies a comment; false when the copy already holds it (a replay). */
  async addComment(tx: SqlExecutor, commentId: number, trackId: number, parentId: number | null, at: Date): Promise<boolean> {
    const added = await tx.$executeRaw(
      sql`INSERT INTO track_comments (comment_id, track_id, parent_id, created_at) VALUES (${commentId}, ${trackId}, ${parentId}, ${at.toISOString()}::timestamptz) ON CONFLICT DO NOTHING`,
    );
    return added > 0;
  },

  /** Removes a comment and its replies (deleted with it); the times of the removed rows. */
  async removeComment(tx: SqlExecutor, commentId: number): Promise<Date[]> {
    const removed = await tx.$queryRaw<Array<{ createdAt: Date }>>(
      sql`DELETE FROM track_comments WHERE comment_id = ${commentId} OR parent_id = ${commentId} RETURNING created_at AS "createdAt"`,
    );
    return removed.map((row) => new Date(row.createdAt));
  },

  /** Takes social's recounted values, one statement per table. */
  async applyRecount(
    tx: SqlExecutor,
    tracks: ReadonlyArray<{ trackId: number; likeCount: number; repostCount: number; commentCount: number }>,
    playlists: ReadonlyArray<{ playlistId: number; likeCount: number; repostCount: number }>,
  ): Promise<void> {
    if (tracks.length > 0) {
      await tx.$executeRaw(
        sql`UPDATE tracks t SET like_count = x.l, repost_count = x.r, comment_count = x.c
           FROM unnest(${tracks.map((c) => c.trackId)}::int[], ${tracks.map((c) => c.likeCount)}::int[], ${tracks.map((c) => c.repostCount)}::int[],
                       ${tracks.map((c) => c.commentCount)}::int[]) AS x(id, l, r, c) WHERE t.id = x.id`,
      );
    }
    if (playlists.length > 0) {
      await tx.$executeRaw(
        sql`UPDATE playlists p SET like_count = x.l, repost_count = x.r
           FROM unnest(${playlists.map((c) => c.playlistId)}::int[], ${playlists.map((c) => c.likeCount)}::int[], ${playlists.map((c) => c.repostCount)}::int[])
                AS x(id, l, r) WHERE p.id = x.id`,
      );
    }
  },

  async block(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<void> {
    await tx.$executeRaw(sql`INSERT INTO user_blocks (blocker_id, blocked_id) VALUES (${blockerId}, ${blockedId}) ON CONFLICT DO NOTHING`);
  },

  async unblock(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<void> {
    await tx.$executeRaw(sql`DELETE FROM user_blocks WHERE blocker_id = ${blockerId} AND blocked_id = ${blockedId}`);
  },
};

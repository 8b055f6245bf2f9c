import type { SqlExecutor } from '@msp/events';

type TrackCountColumn = 'like_count' | 'repost_count' | 'comment_count';
type PlaylistCountColumn = 'like_count' | 'repost_count';

/** A track like ('L') or repost ('R') in catalog's copy (`track_engagements`). */
export type EngagementKind = 'L' | 'R';

/**
 * Writes of catalog's copies of what social owns, inside the social-sync consumer's transaction:
 * the engagement counts (R9), the track likes, reposts and comments behind trending (DSC-2,
 * DSC-7), and the blocks (R7).
 */
export const socialCopies = {
  async setTrackCount(tx: SqlExecutor, column: TrackCountColumn, trackId: number, count: number): Promise<void> {
    await tx.$executeRawUnsafe(`UPDATE tracks SET ${column} = $2 WHERE id = $1`, trackId, count);
  },

  async setPlaylistCount(tx: SqlExecutor, column: PlaylistCountColumn, playlistId: number, count: number): Promise<void> {
    await tx.$executeRawUnsafe(`UPDATE playlists SET ${column} = $2 WHERE id = $1`, playlistId, count);
  },

  /** Copies a like or repost; false when the copy already holds it (a replay). */
  async addEngagement(tx: SqlExecutor, kind: EngagementKind, userId: number, trackId: number, at: Date): Promise<boolean> {
    const added = await tx.$executeRawUnsafe(
      `INSERT INTO track_engagements (kind, user_id, track_id, created_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING`,
      kind,
      userId,
      trackId,
      at.toISOString(),
    );
    return added > 0;
  },

  /** Removes a like or repost; the times of the removed rows (none on a replay). */
  async removeEngagement(tx: SqlExecutor, kind: EngagementKind, userId: number, trackId: number): Promise<Date[]> {
    const removed = await tx.$queryRawUnsafe<Array<{ createdAt: Date }>>(
      `DELETE FROM track_engagements WHERE kind = $1 AND user_id = $2 AND track_id = $3 RETURNING created_at AS "createdAt"`,
      kind,
      userId,
      trackId,
    );
    return removed.map((row) => new Date(row.createdAt));
  },

  /** Copies a comment; false when the copy already holds it (a replay). */
  async addComment(tx: SqlExecutor, commentId: number, trackId: number, parentId: number | null, at: Date): Promise<boolean> {
    const added = await tx.$executeRawUnsafe(
      `INSERT INTO track_comments (comment_id, track_id, parent_id, created_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING`,
      commentId,
      trackId,
      parentId,
      at.toISOString(),
    );
    return added > 0;
  },

  /** Removes a comment and its replies (deleted with it); the times of the removed rows. */
  async removeComment(tx: SqlExecutor, commentId: number): Promise<Date[]> {
    const removed = await tx.$queryRawUnsafe<Array<{ createdAt: Date }>>(
      `DELETE FROM track_comments WHERE comment_id = $1 OR parent_id = $1 RETURNING created_at AS "createdAt"`,
      commentId,
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
      await tx.$executeRawUnsafe(
        `UPDATE tracks t SET like_count = x.l, repost_count = x.r, comment_count = x.c
           FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) AS x(id, l, r, c) WHERE t.id = x.id`,
        tracks.map((c) => c.trackId),
        tracks.map((c) => c.likeCount),
        tracks.map((c) => c.repostCount),
        tracks.map((c) => c.commentCount),
      );
    }
    if (playlists.length > 0) {
      await tx.$executeRawUnsafe(
        `UPDATE playlists p SET like_count = x.l, repost_count = x.r
           FROM unnest($1::int[], $2::int[], $3::int[]) AS x(id, l, r) WHERE p.id = x.id`,
        playlists.map((c) => c.playlistId),
        playlists.map((c) => c.likeCount),
        playlists.map((c) => c.repostCount),
      );
    }
  },

  async block(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<void> {
    await tx.$executeRawUnsafe(`INSERT INTO user_blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, blockerId, blockedId);
  },

  async unblock(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<void> {
    await tx.$executeRawUnsafe(`DELETE FROM user_blocks WHERE blocker_id = $1 AND blocked_id = $2`, blockerId, blockedId);
  },
};

import type { RepostHistoryEntry } from '@msp/contracts';
import { sql } from '@msp/db';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { playlistVisibleSql, trackVisibleSql, userColumns } from '../users/user-sql.js';
import type { Viewer } from '../users/viewer.js';
import { pagedQuery } from '../../sql/paged-query.repository.js';
import type { PlaylistListRow, TrackListRow } from './track.mapper.js';

/**
 * A user's liked or reposted tracks and playlists, as the viewer may see them: only items visible
 * to the viewer (R2, R6, R7), each with its owner, the viewer's flags and isFollowing, in one
 * query per page plus one for the total (run together).
 */
export class ActivityRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async tracks(source: 'track_likes' | 'track_reposts', userId: number, viewer: Viewer, page: number, size: number) {
    const table = source === 'track_likes' ? sql`track_likes` : sql`track_reposts`;
    const from = sql`FROM ${table} e
         JOIN track_refs t ON t.track_id = e.track_id
         JOIN user_summaries a ON a.user_id = t.artist_id
        WHERE e.user_id = ${userId} AND ${trackVisibleSql('t', viewer.id, viewer.isAdmin)}`;
    return pagedQuery<TrackListRow>(
      this.prisma,
      {
        select: sql`SELECT t.track_id AS "trackId", t.title, t.track_slug AS "trackSlug", t.state, t.is_private AS "isPrivate",
              t.access, t.duration_seconds AS "durationSeconds", t.cover_url AS "coverUrl", t.genre,
              t.published_at AS "publishedAt", t.created_at AS "createdAt", t.like_count AS "likeCount",
              t.repost_count AS "repostCount", t.comment_count AS "commentCount", e.created_at AS "repostedAt",
              EXISTS (SELECT 1 FROM track_likes l WHERE l.user_id = ${viewer.id} AND l.track_id = t.track_id) AS "isLiked",
              EXISTS (SELECT 1 FROM track_reposts r WHERE r.user_id = ${viewer.id} AND r.track_id = t.track_id) AS "isReposted",
              EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewer.id} AND f.followee_id = a.user_id) AS "artistIsFollowing",
              ${userColumns('a', 'artist')}`,
        from,
        order: sql`ORDER BY e.created_at DESC, t.track_id DESC`,
      },
      page,
      size,
    );
  }

  async likedPlaylists(userId: number, viewer: Viewer, page: number, size: number) {
    const from = sql`FROM playlist_likes e
         JOIN playlist_refs p ON p.playlist_id = e.playlist_id
         JOIN user_summaries o ON o.user_id = p.owner_id
        WHERE e.user_id = ${userId} AND ${playlistVisibleSql('p', viewer.id, viewer.isAdmin)}`;
    return pagedQuery<PlaylistListRow>(
      this.prisma,
      {
        select: sql`SELECT p.playlist_id AS "playlistId", p.title, p.playlist_slug AS "playlistSlug", p.is_private AS "isPrivate",
              p.cover_art_url AS "coverArtUrl", p.created_at AS "createdAt", p.like_count AS "likeCount",
              p.repost_count AS "repostCount",
              EXISTS (SELECT 1 FROM playlist_likes l WHERE l.user_id = ${viewer.id} AND l.playlist_id = p.playlist_id) AS "isLiked",
              EXISTS (SELECT 1 FROM playlist_reposts r WHERE r.user_id = ${viewer.id} AND r.playlist_id = p.playlist_id) AS "isReposted",
              EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewer.id} AND f.followee_id = o.user_id) AS "ownerIsFollowing",
              ${userColumns('o', 'owner')}`,
        from,
        order: sql`ORDER BY e.created_at DESC, p.playlist_id DESC`,
      },
      page,
      size,
    );
  }

  /** ENG-19: track and playlist reposts of the user, latest first. */
  async repostHistory(userId: number, viewer: Viewer, page: number, size: number) {
    const union = sql`SELECT 'TRACK' AS type, t.track_id AS id, t.title, t.track_slug AS slug, t.cover_url AS "coverUrl", r.created_at AS "repostedAt"
           FROM track_reposts r JOIN track_refs t ON t.track_id = r.track_id
          WHERE r.user_id = ${userId} AND ${trackVisibleSql('t', viewer.id, viewer.isAdmin)}
         UNION ALL
         SELECT 'PLAYLIST' AS type, p.playlist_id AS id, p.title, p.playlist_slug AS slug, p.cover_art_url AS "coverUrl", r.created_at AS "repostedAt"
           FROM playlist_reposts r JOIN playlist_refs p ON p.playlist_id = r.playlist_id
          WHERE r.user_id = ${userId} AND ${playlistVisibleSql('p', viewer.id, viewer.isAdmin)}`;
    return pagedQuery<Omit<RepostHistoryEntry, 'repostedAt'> & { repostedAt: Date }>(
      this.prisma,
      {
        select: sql`SELECT *`,
        from: sql`FROM (${union}) h`,
        order: sql`ORDER BY h."repostedAt" DESC, h.type, h.id DESC`,
      },
      page,
      size,
    );
  }
}

/** What ActivityService needs of the activity lists (unit tests give a fake). */
export type ActivityStore = Pick<ActivityRepository, 'tracks' | 'likedPlaylists' | 'repostHistory'>;

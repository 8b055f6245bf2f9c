import type pg from 'pg';
import { pgStatement, sql } from '@msp/db';

/** A viewer's flags among a page's tracks and artists: the ids that are set. */
export interface ViewerFlags {
  liked: number[];
  reposted: number[];
  following: number[];
}

const viewerFlagsSql = (viewerId: number, trackIds: readonly number[], artistIds: readonly number[]) => sql`SELECT
    ARRAY(SELECT e.track_id FROM track_engagements e WHERE e.kind = 'L' AND e.user_id = ${viewerId} AND e.track_id = ANY(${trackIds}::int[])) AS liked,
    ARRAY(SELECT e.track_id FROM track_engagements e WHERE e.kind = 'R' AND e.user_id = ${viewerId} AND e.track_id = ANY(${trackIds}::int[])) AS reposted,
    ARRAY(SELECT f.followee_id FROM user_follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = ANY(${artistIds}::int[])) AS following`;

/** ViewerFlags with the viewer's likes and reposts among a page's playlists. */
export interface PlaylistViewerFlags extends ViewerFlags {
  likedPlaylists: number[];
  repostedPlaylists: number[];
}

export const NO_PLAYLIST_FLAGS: PlaylistViewerFlags = { liked: [], reposted: [], following: [], likedPlaylists: [], repostedPlaylists: [] };

/**
 * The viewer's isLiked/isReposted/isFollowing from catalog's copies of social's data: likes and
 * reposts of tracks and playlists (`track_engagements`, `playlist_engagements`, kinds 'L' and 'R',
 * kept by social-sync) and follows
 * (`user_follows`, kept by follows-copy). ONE named statement per page, primary-key lookups only
 * (index-only scans of `(kind, user_id, track_id)` and `(follower_id, followee_id)`).
 */
export class ViewerFlagsRepository {
  constructor(private readonly pool: pg.Pool) {}

  async of(viewerId: number, trackIds: readonly number[], artistIds: readonly number[]): Promise<ViewerFlags> {
    const result = await this.pool.query<ViewerFlags>(pgStatement(viewerFlagsSql(viewerId, trackIds, artistIds), 'catalog_viewer_flags'));
    return result.rows[0]!;
  }

  /** `of`, and the viewer's likes and reposts among `playlistIds` (`playlist_engagements`), in ONE statement. */
  async ofPlaylists(viewerId: number, playlistIds: readonly number[], trackIds: readonly number[], userIds: readonly number[]): Promise<PlaylistViewerFlags> {
    const result = await this.pool.query<PlaylistViewerFlags>(
      pgStatement(
        sql`${viewerFlagsSql(viewerId, trackIds, userIds)},
          ARRAY(SELECT e.playlist_id FROM playlist_engagements e WHERE e.kind = 'L' AND e.user_id = ${viewerId} AND e.playlist_id = ANY(${playlistIds}::int[])) AS "likedPlaylists",
          ARRAY(SELECT e.playlist_id FROM playlist_engagements e WHERE e.kind = 'R' AND e.user_id = ${viewerId} AND e.playlist_id = ANY(${playlistIds}::int[])) AS "repostedPlaylists"`,
        'catalog_viewer_flags_playlists',
      ),
    );
    return result.rows[0]!;
  }
}

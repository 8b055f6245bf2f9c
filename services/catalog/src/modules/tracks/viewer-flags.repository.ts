import type pg from 'pg';

/** A viewer's flags among a page's tracks and artists: the ids that are set. */
export interface ViewerFlags {
  liked: number[];
  reposted: number[];
  following: number[];
}

const VIEWER_FLAGS_SQL = `SELECT
    ARRAY(SELECT e.track_id FROM track_engagements e WHERE e.kind = 'L' AND e.user_id = $1 AND e.track_id = ANY($2::int[])) AS liked,
    ARRAY(SELECT e.track_id FROM track_engagements e WHERE e.kind = 'R' AND e.user_id = $1 AND e.track_id = ANY($2::int[])) AS reposted,
    ARRAY(SELECT f.followee_id FROM user_follows f WHERE f.follower_id = $1 AND f.followee_id = ANY($3::int[])) AS following`;

/**
 * The viewer's isLiked/isReposted/isFollowing from catalog's copies of social's data: likes and
 * reposts of tracks (`track_engagements`, kinds 'L' and 'R', kept by social-sync) and follows
 * (`user_follows`, kept by follows-copy). ONE named statement per page, primary-key lookups only
 * (index-only scans of `(kind, user_id, track_id)` and `(follower_id, followee_id)`).
 */
export class ViewerFlagsRepository {
  constructor(private readonly pool: pg.Pool) {}

  async of(viewerId: number, trackIds: readonly number[], artistIds: readonly number[]): Promise<ViewerFlags> {
    const result = await this.pool.query<ViewerFlags>({ name: 'catalog_viewer_flags', text: VIEWER_FLAGS_SQL, values: [viewerId, trackIds, artistIds] });
    return result.rows[0]!;
  }
}

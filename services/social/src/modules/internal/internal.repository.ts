/**
 * The internal batch reads (INTERNAL_ROUTES) written as SQL on the pg pool, not through Prisma:
 * they run for every page another service renders, where Prisma's query building and row mapping
 * cost more than the indexed lookups themselves. Each is one named statement (prepared once per
 * connection), and PostgreSQL builds the JSON answer, which is sent as it comes.
 */

/** What the repository needs of pg.Pool: one query. */
export interface SqlPool {
  query<R extends Record<string, unknown>>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/** The viewer's likes and reposts of an item list `$n` (int[]), in the order given. */
function flagsJson(ids: string, likes: string, reposts: string, column: string): string {
  return `COALESCE((SELECT json_agg(json_build_object(
              'id', ids.id,
              'isLiked', EXISTS (SELECT 1 FROM ${likes} l WHERE l.user_id = $1 AND l.${column} = ids.id),
              'isReposted', EXISTS (SELECT 1 FROM ${reposts} r WHERE r.user_id = $1 AND r.${column} = ids.id)
            ) ORDER BY ids.ord)
       FROM unnest(${ids}::int[]) WITH ORDINALITY AS ids(id, ord)), '[]'::json)`;
}

/** The four relationships of the viewer ($1) to each user of `$n` (int[]), in the order given. */
function relationshipsJson(ids: string): string {
  return `COALESCE((SELECT json_agg(json_build_object(
              'userId', ids.id,
              'isFollowing', EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = $1 AND f.followee_id = ids.id),
              'isFollowed', EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ids.id AND f.followee_id = $1),
              'isBlocked', EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = $1 AND b.blocked_id = ids.id),
              'hasBlockedViewer', EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ids.id AND b.blocked_id = $1)
            ) ORDER BY ids.ord)
       FROM unnest(${ids}::int[]) WITH ORDINALITY AS ids(id, ord)), '[]'::json)`;
}

const ENGAGEMENT_SQL = `SELECT json_build_object(
    'tracks', ${flagsJson('$2', 'track_likes', 'track_reposts', 'track_id')},
    'playlists', ${flagsJson('$3', 'playlist_likes', 'playlist_reposts', 'playlist_id')},
    'users', ${relationshipsJson('$4')}
  )::text AS body`;

const RELATIONSHIPS_SQL = `SELECT json_build_object('items', ${relationshipsJson('$2')})::text AS body`;

export class InternalReadsRepository {
  constructor(private readonly pool: SqlPool) {}

  /**
   * INTERNAL_ROUTES.engagement as JSON text: `{tracks, playlists, users}` (EngagementResponse),
   * one statement, primary-key lookups per id.
   */
  async engagement(viewerId: number, trackIds: number[], playlistIds: number[], userIds: number[]): Promise<string> {
    const { rows } = await this.pool.query<{ body: string }>({
      name: 'social-internal-engagement',
      text: ENGAGEMENT_SQL,
      values: [viewerId, trackIds, playlistIds, userIds],
    });
    return rows[0]!.body;
  }

  /** INTERNAL_ROUTES.relationships as JSON text: `{items}` (RelationshipsResponse), one statement. */
  async relationships(viewerId: number, userIds: number[]): Promise<string> {
    const { rows } = await this.pool.query<{ body: string }>({ name: 'social-internal-relationships', text: RELATIONSHIPS_SQL, values: [viewerId, userIds] });
    return rows[0]!.body;
  }
}

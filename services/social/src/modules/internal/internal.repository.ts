/**
 * The internal batch reads (INTERNAL_ROUTES) written as SQL on the pg pool, not through Prisma:
 * they run for every page another service renders, where Prisma's query building and row mapping
 * cost more than the indexed lookups themselves. Each is one named statement (prepared once per
 * connection), and PostgreSQL builds the JSON answer, which is sent as it comes.
 */

import { pgStatement, sql, type Sql } from '@msp/db';

/** What the repository needs of pg.Pool: one query. */
export interface SqlPool {
  query<R extends Record<string, unknown>>(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/** The four relationships of the viewer to each user of `ids`, in the order given. */
function relationshipsJson(viewerId: number, ids: number[]): Sql {
  return sql`COALESCE((SELECT json_agg(json_build_object(
              'userId', ids.id,
              'isFollowing', EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = ids.id),
              'isFollowed', EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ids.id AND f.followee_id = ${viewerId}),
              'isBlocked', EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ${viewerId} AND b.blocked_id = ids.id),
              'hasBlockedViewer', EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ids.id AND b.blocked_id = ${viewerId})
            ) ORDER BY ids.ord)
       FROM unnest(${ids}::int[]) WITH ORDINALITY AS ids(id, ord)), '[]'::json)`;
}

export class InternalReadsRepository {
  constructor(private readonly pool: SqlPool) {}

  /** INTERNAL_ROUTES.relationships as JSON text: `{items}` (RelationshipsResponse), one statement. */
  async relationships(viewerId: number, userIds: number[]): Promise<string> {
    const query = sql`SELECT json_build_object('items', ${relationshipsJson(viewerId, userIds)})::text AS body`;
    const { rows } = await this.pool.query<{ body: string }>(pgStatement(query, 'social-internal-relationships'));
    return rows[0]!.body;
  }
}

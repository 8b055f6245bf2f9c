import { pgStatement, sql } from '@msp/db';
import type pg from 'pg';

export interface FollowsBackfillResult {
  /** Pairs read from social's `follows`. */
  read: number;
  /** Pairs the copy did not hold yet. */
  inserted: number;
  /** Pairs the copy held that social no longer holds (the reconcile pass). */
  removed: number;
}

type Pair = { followerId: number; followeeId: number };

/**
 * A one-off copy of social's follows into catalog's `user_follows`, for follows older than what
 * social's event stream still holds (7 days): a deployment that adds the copy, or a copy lost with
 * a restore. Run while `catalog--follows-copy` consumes, so nothing new is missed:
 *
 * 1. copy: social's `follows` in primary-key order, `batch` pairs a statement (keyset, never an
 *    offset), inserted with ON CONFLICT DO NOTHING (what the consumer already wrote stays);
 * 2. reconcile: catalog's copy in the same order, each batch checked against social's table, pairs
 *    social no longer holds deleted (an unfollow the consumer applied before step 1 wrote the pair).
 *
 * Memory is one batch. Idempotent: a second run reads the same pairs and writes nothing.
 */
export async function backfillFollows(social: pg.Pool, catalog: pg.Pool, batch = 10_000): Promise<FollowsBackfillResult> {
  const result: FollowsBackfillResult = { read: 0, inserted: 0, removed: 0 };
  for (let after: Pair = { followerId: 0, followeeId: 0 }; ;) {
    const { rows } = await social.query<Pair>(
      pgStatement(sql`SELECT follower_id AS "followerId", followee_id AS "followeeId" FROM follows
        WHERE (follower_id, followee_id) > (${after.followerId}, ${after.followeeId}) ORDER BY follower_id, followee_id LIMIT ${batch}`),
    );
    if (rows.length === 0) break;
    result.read += rows.length;
    const inserted = await catalog.query(
      pgStatement(
        sql`INSERT INTO user_follows (follower_id, followee_id) SELECT * FROM unnest(${rows.map((r) => r.followerId)}::int[], ${rows.map((r) => r.followeeId)}::int[])
            ON CONFLICT DO NOTHING`,
      ),
    );
    result.inserted += inserted.rowCount ?? 0;
    after = rows[rows.length - 1]!;
  }
  for (let after: Pair = { followerId: 0, followeeId: 0 }; ;) {
    const { rows } = await catalog.query<Pair>(
      pgStatement(sql`SELECT follower_id AS "followerId", followee_id AS "followeeId" FROM user_follows
        WHERE (follower_id, followee_id) > (${after.followerId}, ${after.followeeId}) ORDER BY follower_id, followee_id LIMIT ${batch}`),
    );
    if (rows.length === 0) break;
    const followers = rows.map((r) => r.followerId);
    const followees = rows.map((r) => r.followeeId);
    const held = await social.query<Pair>(
      pgStatement(sql`SELECT f.follower_id AS "followerId", f.followee_id AS "followeeId"
         FROM unnest(${followers}::int[], ${followees}::int[]) AS p(follower_id, followee_id)
         JOIN follows f ON f.follower_id = p.follower_id AND f.followee_id = p.followee_id`),
    );
    const kept = new Set(held.rows.map((r) => `${r.followerId}:${r.followeeId}`));
    const gone = rows.filter((r) => !kept.has(`${r.followerId}:${r.followeeId}`));
    if (gone.length > 0) {
      const removed = await catalog.query(
        pgStatement(sql`DELETE FROM user_follows u USING unnest(${gone.map((r) => r.followerId)}::int[], ${gone.map((r) => r.followeeId)}::int[]) AS p(follower_id, followee_id)
          WHERE u.follower_id = p.follower_id AND u.followee_id = p.followee_id`),
      );
      result.removed += removed.rowCount ?? 0;
    }
    after = rows[rows.length - 1]!;
  }
  return result;
}

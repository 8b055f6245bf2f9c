import { sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

/**
 * Locks the user_summaries rows of two users in id order. Follow, unfollow and block all take
 * these locks first, so concurrent operations on the same pair serialise instead of deadlocking
 * (A follows B while B follows A), and a follow can never slip in beside a block being created.
 */
export async function lockUsers(tx: SqlExecutor, a: number, b: number): Promise<void> {
  await tx.$queryRaw(sql`SELECT user_id FROM user_summaries WHERE user_id IN (${a}, ${b}) ORDER BY user_id FOR UPDATE`);
}

export interface FollowCounts {
  userId: number;
  followerCount: number;
  followingCount: number;
}

/** Current counts of the given users, in the order given (users unknown to social count 0). */
export async function followCounts(tx: SqlExecutor, userIds: number[]): Promise<FollowCounts[]> {
  return tx.$queryRaw<FollowCounts[]>(
    sql`SELECT ids.id AS "userId", COALESCE(u.follower_count, 0) AS "followerCount", COALESCE(u.following_count, 0) AS "followingCount"
          FROM unnest(${userIds}::int[]) WITH ORDINALITY AS ids(id, n) LEFT JOIN user_summaries u ON u.user_id = ids.id
         ORDER BY ids.n`,
  );
}

/** The two graph statements above, for services that take their collaborators by constructor. */
export class GraphLocksRepository {
  lockUsers(tx: SqlExecutor, a: number, b: number): Promise<void> {
    return lockUsers(tx, a, b);
  }

  followCounts(tx: SqlExecutor, userIds: number[]): Promise<FollowCounts[]> {
    return followCounts(tx, userIds);
  }
}

/** What the follow and block services need of the graph locks (unit tests give a fake). */
export type GraphLocks = Pick<GraphLocksRepository, 'lockUsers' | 'followCounts'>;

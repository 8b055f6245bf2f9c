import type { SqlExecutor } from '@msp/events';

/**
 * Writes of catalog's copy of social's follows (`user_follows`), inside the consumer's
 * transaction. Idempotent: a redelivered follow inserts nothing, a redelivered unfollow deletes
 * nothing.
 */
export const followsCopy = {
  async follow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<void> {
    await tx.$executeRawUnsafe(`INSERT INTO user_follows (follower_id, followee_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, followerId, followeeId);
  },

  async unfollow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<void> {
    await tx.$executeRawUnsafe(`DELETE FROM user_follows WHERE follower_id = $1 AND followee_id = $2`, followerId, followeeId);
  },

  /** R7: a block removes the follows in both directions between the two users. */
  async unfollowBothWays(tx: SqlExecutor, a: number, b: number): Promise<void> {
    await tx.$executeRawUnsafe(`DELETE FROM user_follows WHERE (follower_id = $1 AND followee_id = $2) OR (follower_id = $2 AND followee_id = $1)`, a, b);
  },
};

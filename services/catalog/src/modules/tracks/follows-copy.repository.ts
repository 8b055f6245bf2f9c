import { sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

/**
 * Writes of catalog's copy of social's follows (`user_follows`), inside the consumer's
 * transaction. Idempotent: a redelivered follow inserts nothing, a redelivered unfollow deletes
 * nothing.
 */
export const followsCopy = {
  async follow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<void> {
    await tx.$executeRaw(sql`INSERT INTO user_follows (follower_id, followee_id) VALUES (${followerId}, ${followeeId}) ON CONFLICT DO NOTHING`);
  },

  async unfollow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<void> {
    await tx.$executeRaw(sql`DELETE FROM user_follows WHERE follower_id = ${followerId} AND followee_id = ${followeeId}`);
  },

  /** R7: a block removes the follows in both directions between the two users. */
  async unfollowBothWays(tx: SqlExecutor, a: number, b: number): Promise<void> {
    await tx.$executeRaw(sql`DELETE FROM user_follows WHERE (follower_id = ${a} AND followee_id = ${b}) OR (follower_id = ${b} AND followee_id = ${a})`);
  },
};

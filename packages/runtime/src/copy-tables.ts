import { raw, sql, type SqlExecutor } from '@msp/db';
import type { BlocksCopy, FollowsCopy } from './projection.js';

/** The tables services keep their copies of social's follows and blocks in (same columns everywhere). */
type FollowsTable = 'follows' | 'user_follows';
type BlocksTable = 'blocks';

/**
 * The writes of a copy of social's follows kept in `table` (`follower_id`, `followee_id`), inside
 * the consumer's transaction. Idempotent: a redelivered follow inserts nothing, a redelivered
 * unfollow deletes nothing. R7: a block removes the follows in both directions.
 */
export function followsCopyTable(table: FollowsTable): FollowsCopy<SqlExecutor> {
  const t = raw(table);
  return {
    async follow(tx, followerId, followeeId) {
      await tx.$executeRaw(sql`INSERT INTO ${t} (follower_id, followee_id) VALUES (${followerId}, ${followeeId}) ON CONFLICT DO NOTHING`);
    },
    async unfollow(tx, followerId, followeeId) {
      await tx.$executeRaw(sql`DELETE FROM ${t} WHERE follower_id = ${followerId} AND followee_id = ${followeeId}`);
    },
    async unfollowBothWays(tx, a, b) {
      await tx.$executeRaw(sql`DELETE FROM ${t} WHERE (follower_id = ${a} AND followee_id = ${b}) OR (follower_id = ${b} AND followee_id = ${a})`);
    },
  };
}

/** The writes of a copy of social's blocks kept in `table` (`blocker_id`, `blocked_id`, `created_at`); idempotent. */
export function blocksCopyTable(table: BlocksTable): BlocksCopy<SqlExecutor> {
  const t = raw(table);
  return {
    async block(tx, blockerId, blockedId, at) {
      await tx.$executeRaw(
        sql`INSERT INTO ${t} (blocker_id, blocked_id, created_at) VALUES (${blockerId}, ${blockedId}, ${at}::timestamptz) ON CONFLICT DO NOTHING`,
      );
    },
    async unblock(tx, blockerId, blockedId) {
      await tx.$executeRaw(sql`DELETE FROM ${t} WHERE blocker_id = ${blockerId} AND blocked_id = ${blockedId}`);
    },
  };
}

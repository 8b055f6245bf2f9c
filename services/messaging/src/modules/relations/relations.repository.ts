import type { SqlExecutor } from '@msp/events';

/**
 * Messaging's copies of social's follows and blocks and of identity's bans, written by the
 * consumers inside the transaction that also records the event as processed.
 */
/** Clears one reason a user is hidden; the row goes when none is left (a ban outlives a cancelled deletion). */
async function unhide(tx: SqlExecutor, userId: number, reason: 'is_banned' | 'deletion_pending'): Promise<void> {
  await tx.$executeRawUnsafe(`UPDATE banned_users SET ${reason} = false WHERE user_id = $1`, userId);
  await tx.$executeRawUnsafe('DELETE FROM banned_users WHERE user_id = $1 AND NOT is_banned AND NOT deletion_pending', userId);
}

export const relationsRepository = {
  async follow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<void> {
    await tx.$executeRawUnsafe('INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', followerId, followeeId);
  },

  async unfollow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<void> {
    await tx.$executeRawUnsafe('DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2', followerId, followeeId);
  },

  /** R7: a block removes follows both ways. */
  async unfollowBothWays(tx: SqlExecutor, a: number, b: number): Promise<void> {
    await tx.$executeRawUnsafe('DELETE FROM follows WHERE (follower_id = $1 AND followee_id = $2) OR (follower_id = $2 AND followee_id = $1)', a, b);
  },

  async block(tx: SqlExecutor, blockerId: number, blockedId: number, at: string): Promise<void> {
    await tx.$executeRawUnsafe(
      'INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, $3::timestamptz) ON CONFLICT DO NOTHING',
      blockerId,
      blockedId,
      at,
    );
  },

  async unblock(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<void> {
    await tx.$executeRawUnsafe('DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2', blockerId, blockedId);
  },

  async ban(tx: SqlExecutor, { userId, bannedAt }: { userId: number; bannedAt: string }): Promise<void> {
    await tx.$executeRawUnsafe(
      `INSERT INTO banned_users (user_id, banned_at, is_banned) VALUES ($1, $2::timestamptz, true)
       ON CONFLICT (user_id) DO UPDATE SET banned_at = EXCLUDED.banned_at, is_banned = true`,
      userId,
      bannedAt,
    );
  },

  async unban(tx: SqlExecutor, { userId }: { userId: number }): Promise<void> {
    await unhide(tx, userId, 'is_banned');
  },

  /** ACC-3: a user whose deletion is scheduled is hidden as a banned one, until ACC-4 or the deletion. */
  async scheduleDeletion(tx: SqlExecutor, userId: number): Promise<void> {
    await tx.$executeRawUnsafe(
      `INSERT INTO banned_users (user_id, banned_at, is_banned, deletion_pending) VALUES ($1, now(), false, true)
       ON CONFLICT (user_id) DO UPDATE SET deletion_pending = true`,
      userId,
    );
  },

  async cancelDeletion(tx: SqlExecutor, userId: number): Promise<void> {
    await unhide(tx, userId, 'deletion_pending');
  },
};

import type { SqlExecutor } from '@msp/events';

/**
 * Identity's copies of numbers other services own, written by consumers inside the transaction
 * that records the event as processed: follow and track counts (USR-14/15), the tier billing
 * decides (R17).
 */
export const profileStatsRepository = {
  /** Sets the counts given (one statement); a count absent is left as it is. */
  async setFollowCounts(tx: SqlExecutor, counts: ReadonlyArray<{ userId: number; followerCount?: number; followingCount?: number }>): Promise<void> {
    if (counts.length === 0) return;
    await tx.$executeRawUnsafe(
      `UPDATE users u SET follower_count = COALESCE(x.followers, u.follower_count), following_count = COALESCE(x.following, u.following_count)
         FROM unnest($1::int[], $2::int[], $3::int[]) AS x(id, followers, following) WHERE u.id = x.id`,
      counts.map((c) => c.userId),
      counts.map((c) => c.followerCount ?? null),
      counts.map((c) => c.followingCount ?? null),
    );
  },

  async setTrackCount(tx: SqlExecutor, userId: number, trackCount: number): Promise<void> {
    await tx.$executeRawUnsafe('UPDATE users SET track_count = $2 WHERE id = $1', userId, trackCount);
  },

  /** The user's tier and billing version, the row locked until the transaction ends. */
  async lockTier(tx: SqlExecutor, userId: number): Promise<{ tier: string; billingTierVersion: number } | null> {
    const rows = await tx.$queryRawUnsafe<Array<{ tier: string; billing_tier_version: number }>>(
      'SELECT tier::text AS tier, billing_tier_version FROM users WHERE id = $1 FOR UPDATE',
      userId,
    );
    const row = rows[0];
    return row ? { tier: row.tier, billingTierVersion: row.billing_tier_version } : null;
  },

  async setTier(tx: SqlExecutor, userId: number, tier: string, version: number): Promise<void> {
    await tx.$executeRawUnsafe(`UPDATE users SET tier = $2::"Tier", billing_tier_version = $3, updated_at = now() WHERE id = $1`, userId, tier, version);
  },
};

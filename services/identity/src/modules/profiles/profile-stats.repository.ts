import { sql } from '@msp/db';
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
    const ids = counts.map((c) => c.userId);
    const followers = counts.map((c) => c.followerCount ?? null);
    const following = counts.map((c) => c.followingCount ?? null);
    await tx.$executeRaw(
      sql`UPDATE users u SET follower_count = COALESCE(x.followers, u.follower_count), following_count = COALESCE(x.following, u.following_count)
         FROM unnest(${ids}::int[], ${followers}::int[], ${following}::int[]) AS x(id, followers, following) WHERE u.id = x.id`,
    );
  },

  async setTrackCount(tx: SqlExecutor, userId: number, trackCount: number): Promise<void> {
    await tx.$executeRaw(sql`UPDATE users SET track_count = ${trackCount} WHERE id = ${userId}`);
  },

  /** The user's tier and billing version, the row locked until the transaction ends. */
  async lockTier(tx: SqlExecutor, userId: number): Promise<{ tier: string; billingTierVersion: number } | null> {
    const rows = await tx.$queryRaw<Array<{ tier: string; billing_tier_version: number }>>(
      sql`SELECT tier::text AS tier, billing_tier_version FROM users WHERE id = ${userId} FOR UPDATE`,
    );
    const row = rows[0];
    return row ? { tier: row.tier, billingTierVersion: row.billing_tier_version } : null;
  },

  async setTier(tx: SqlExecutor, userId: number, tier: string, version: number): Promise<void> {
    await tx.$executeRaw(sql`UPDATE users SET tier = ${tier}::"Tier", billing_tier_version = ${version}, updated_at = now() WHERE id = ${userId}`);
  },
};

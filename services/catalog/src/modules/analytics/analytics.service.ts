import type { PlatformMetrics } from '@msp/contracts';
import type { AnalyticsStore } from './analytics.repository.js';

const num = (v: bigint | number | null | undefined) => Math.max(0, Number(v ?? 0));

/**
 * MOD-12 from catalog's own data. Every figure is exact and cheap: the sum of the 16 rows of
 * `platform_counters` (kept by triggers on `tracks` and `user_summaries` in the same transaction
 * as each change) and an index-only count of the partial index of banned users.
 */
export class AnalyticsService {
  constructor(
    private readonly repo: AnalyticsStore,
    private readonly storageCapacityBytes: number,
  ) {}

  async metrics(): Promise<PlatformMetrics> {
    const s = await this.repo.sums();
    const plays = num(s?.plays);
    const completed = num(s?.completedPlays);
    const banned = num(s?.banned);
    return {
      totalUsers: num(s?.users),
      totalTracks: num(s?.tracks),
      totalPlays: plays,
      // Completed plays are de-duplicated apart from plays, so they can exceed them: capped at 1.
      playThroughRate: plays === 0 ? 0 : Math.min(1, completed / plays),
      totalStorageUsedBytes: num(s?.storageBytes),
      totalStorageCapacityBytes: this.storageCapacityBytes,
      bannedUserCount: banned,
      totalBannedUsers: banned,
      artistToListenerRatio: `${num(s?.artists)}:${num(s?.listeners)}`,
    };
  }
}

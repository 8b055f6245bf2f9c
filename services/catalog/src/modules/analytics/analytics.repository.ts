import { sql } from '@msp/db';
import type { PrismaClient } from '../../generated/prisma/client.js';

export interface CounterSums {
  users: bigint;
  artists: bigint;
  listeners: bigint;
  tracks: bigint;
  plays: bigint;
  completedPlays: bigint;
  storageBytes: bigint;
  banned: bigint;
}

/**
 * MOD-12's one query: the 16 rows of `platform_counters` summed (plus the counted plays not folded
 * into `tracks` yet, `track_play_deltas`: docs/insights.md), and the banned users' partial index counted.
 */
export class AnalyticsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async sums(): Promise<CounterSums | undefined> {
    const [s] = await this.prisma.$queryRaw<CounterSums[]>(
      sql`SELECT sum(users) AS users, sum(artists) AS artists, sum(listeners) AS listeners, sum(tracks) AS tracks,
              sum(plays) + (SELECT coalesce(sum(d.plays), 0) FROM track_play_deltas d JOIN tracks t ON t.id = d.track_id) AS plays,
              sum(completed_plays) + (SELECT coalesce(sum(d.completions), 0) FROM track_play_deltas d JOIN tracks t ON t.id = d.track_id) AS "completedPlays",
              sum(storage_bytes) AS "storageBytes",
              (SELECT count(*) FROM user_ban_states WHERE is_banned) AS banned
         FROM platform_counters`,
    );
    return s;
  }
}

/** What AnalyticsService needs (unit tests give a fake). */
export type AnalyticsStore = Pick<AnalyticsRepository, 'sums'>;

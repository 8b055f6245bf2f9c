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

/** MOD-12's one query: the 16 rows of `platform_counters` summed, and the banned users' partial index counted. */
export class AnalyticsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async sums(): Promise<CounterSums | undefined> {
    const [s] = await this.prisma.$queryRawUnsafe<CounterSums[]>(
      `SELECT sum(users) AS users, sum(artists) AS artists, sum(listeners) AS listeners, sum(tracks) AS tracks,
              sum(plays) AS plays, sum(completed_plays) AS "completedPlays", sum(storage_bytes) AS "storageBytes",
              (SELECT count(*) FROM user_ban_states WHERE is_banned) AS banned
         FROM platform_counters`,
    );
    return s;
  }
}

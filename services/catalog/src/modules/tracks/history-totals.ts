import type { Redis } from 'ioredis';

/**
 * USR-17's total for a full page. Counting it probes every entry of the history (5,000 entries:
 * about 20 ms of index probes at 1M tracks) while the page itself stops after `size` entries, so
 * the count is kept in Redis per listener: dropped when the listener's history changes (a play),
 * and at most `ttlSeconds` old otherwise, so a track of the history that someone else makes
 * private, deletes or has banned (R2, R14), or a new block (R7), leaves the total within that time;
 * the page's content is always filtered as it is now.
 */
export class HistoryTotals {
  /**
   * `scope` names the database the totals come from (every replica of one deployment shares it, so
   * a play on one replica drops the total for all; test databases sharing a Redis never mix).
   */
  constructor(
    private readonly redis: Redis,
    private readonly scope: string,
    private readonly ttlSeconds = 30,
  ) {}

  private key(userId: number): string {
    return `catalog:history-total:${this.scope}:${userId}`;
  }

  async get(userId: number, count: () => Promise<number>): Promise<number> {
    const cached = await this.redis.get(this.key(userId)).catch(() => null); // Redis down: count in SQL instead (the cache only saves work)
    if (cached !== null && /^\d+$/.test(cached)) return Number(cached);
    const total = await count();
    await this.redis.set(this.key(userId), String(total), 'EX', this.ttlSeconds).catch(() => undefined); // Redis down: the next page counts again
    return total;
  }

  /** The listener's history changed (a recorded play): the next full page counts again. */
  async forget(userId: number): Promise<void> {
    await this.redis.del(this.key(userId)).catch(() => undefined); // Redis down: the cached total expires within its TTL
  }
}

import type { Redis } from 'ioredis';
import { APP_USAGE_FIELDS, APP_USAGE_KEYS } from '@msp/contracts';

/** One day of an app's usage as the gateway counted it. */
export interface UsageDay {
  day: string;
  requests: number;
  limited: number;
  /** Requests per contract operation id. */
  operations: Map<string, number>;
}

/**
 * The gateway's per-app usage hashes (APP_USAGE_KEYS, gateway/src/gate.ts), read for APP-17. The
 * gateway is their only writer; identity reads them because it knows who owns an app.
 */
export class AppUsageRepository {
  constructor(private readonly redis: Redis) {}

  /** The given days' counts, in that order (a day without a hash counts zero), in one round trip. */
  async days(clientId: string, days: readonly string[]): Promise<UsageDay[]> {
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(APP_USAGE_KEYS.day(clientId, day));
    const results = (await pipeline.exec()) ?? [];
    return days.map((day, i) => {
      const [err, value] = results[i] ?? [new Error('usage lookup aborted'), null];
      if (err) throw err;
      const hash = (value ?? {}) as Record<string, string>;
      const operations = new Map<string, number>();
      for (const [field, count] of Object.entries(hash)) {
        if (field.startsWith(APP_USAGE_FIELDS.operationPrefix)) operations.set(field.slice(APP_USAGE_FIELDS.operationPrefix.length), Number(count) || 0);
      }
      return { day, requests: Number(hash[APP_USAGE_FIELDS.requests] ?? 0) || 0, limited: Number(hash[APP_USAGE_FIELDS.limited] ?? 0) || 0, operations };
    });
  }
}

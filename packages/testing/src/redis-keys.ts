import { Redis } from 'ioredis';
import { testInfra } from './infra.js';

/**
 * Deletes every key under a test's REDIS_KEY_PREFIX, so that runs do not pile keys up in the shared
 * Redis (counters without an expiry would stay forever). Best effort: a test's cleanup must not
 * fail because Redis went away. An empty prefix deletes nothing (it would mean the whole database).
 */
export async function dropRedisKeys(prefix: string): Promise<void> {
  if (prefix === '') return;
  const redis = new Redis(testInfra().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  try {
    await redis.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch {
    // Redis unreachable: the keys stay (most expire on their own).
  } finally {
    redis.disconnect();
  }
}

import { Redis, type Result } from 'ioredis';

/**
 * Fixed-window counter: INCR, start the window on the first hit, return count and time left.
 * One script call keeps INCR and PEXPIRE atomic (no immortal counter if the process dies between).
 */
const RATE_HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    gatewayRateHit(key: string, windowMs: number): Result<[number, number], Context>;
  }
}

export function createRedis(url: string, keyPrefix: string): Redis {
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    // Never queue commands while Redis is away: a request must get its answer (fail closed for
    // auth, fail open for rate limits) at once instead of hanging until a reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  redis.defineCommand('gatewayRateHit', { numberOfKeys: 1, lua: RATE_HIT_SCRIPT });
  return redis;
}

/** Connects, waiting at most `timeoutMs`; the gateway starts anyway when Redis is down (/ready says so). */
export async function connectRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  let timer: NodeJS.Timeout | undefined;
  try {
    const connecting = redis.status === 'wait' ? redis.connect() : new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    await Promise.race([
      connecting,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('Redis connect timeout')), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

import type { ChainableCommander, Redis } from 'ioredis';

export const RATE_WINDOW_MS = 60_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export const rateKeys = {
  client: (ip: string) => `gateway:rl:client:${ip}`,
  user: (userId: string) => `gateway:rl:user:${userId}`,
};

/** Turns the script's `[count, ttlMs]` into a decision. */
export function decide(result: unknown, limit: number): RateDecision {
  if (!Array.isArray(result) || result.length !== 2) return { allowed: true };
  const [count, ttl] = result.map(Number) as [number, number];
  if (!(count > limit)) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
}

/** Queues one hit on a pipeline (so the per-user hit shares the revocation lookup's round trip). */
export function queueHit(pipeline: ChainableCommander, key: string): ChainableCommander {
  return pipeline.gatewayRateHit(key, RATE_WINDOW_MS);
}

/**
 * One hit against `key`. Returns null when Redis cannot answer: rate limiting is a protection,
 * not a gate, so the request goes through (the caller logs it).
 */
export async function hit(redis: Redis, key: string, limit: number): Promise<RateDecision | null> {
  try {
    return decide(await redis.gatewayRateHit(key, RATE_WINDOW_MS), limit);
  } catch {
    return null;
  }
}

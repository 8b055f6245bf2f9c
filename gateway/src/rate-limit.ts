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

import type { Redis } from 'ioredis';
import { rateLimited } from '../sessions/throttle.js';

/** Wrong second-step codes per account before the backoff starts. */
export const MFA_FAILURES_BEFORE_LOCK = 5;
/** The count is forgotten this long after the last failure. */
const MEMORY_MS = 60 * 60 * 1000;
const FIRST_LOCK_MS = 30_000;
const MAX_LOCK_MS = 15 * 60 * 1000;

/**
 * One more failure (KEYS[1] the count, KEYS[2] the lock): from the ARGV[2]-th failure on, the
 * second step is locked for ARGV[3] × 2^(count − ARGV[2]) ms, at most ARGV[4].
 */
const FAILURE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local limit = tonumber(ARGV[2])
if count >= limit then
  local lock = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (count - limit))
  redis.call('SET', KEYS[2], '1', 'PX', math.floor(lock))
end
return count
`;

/**
 * Wrong TOTP or recovery codes per account (MFA-2, MFA-3, MFA-4): after five, every further
 * attempt is refused with 429 RATE_LIMITED and Retry-After for 30 s, doubling with each further
 * failure up to 15 min. Per account, since the password step already passed: an attacker holding
 * the password cannot rotate anything to get more guesses.
 */
export class MfaThrottle {
  constructor(private readonly redis: Redis) {}

  private keys(userId: number) {
    return { count: `auth:mfa-fail:user:${userId}`, lock: `auth:mfa-lock:user:${userId}` };
  }

  async assertOpen(userId: number): Promise<void> {
    const ttl = await this.redis.pttl(this.keys(userId).lock);
    if (ttl > 0) throw rateLimited(ttl, 'Too many wrong codes; try again later.');
  }

  async recordFailure(userId: number): Promise<void> {
    const k = this.keys(userId);
    await this.redis.eval(FAILURE_SCRIPT, 2, k.count, k.lock, MEMORY_MS, MFA_FAILURES_BEFORE_LOCK, FIRST_LOCK_MS, MAX_LOCK_MS);
  }

  async clear(userId: number): Promise<void> {
    const k = this.keys(userId);
    await this.redis.del(k.count, k.lock);
  }
}

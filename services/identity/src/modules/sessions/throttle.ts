import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import { emailKey } from './secrets.js';

const WINDOW_MS = 15 * 60 * 1000;
const FIRST_LOCK_MS = 30_000;

/** INCR with the window started on the first hit, atomically; returns the count and the time left. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

function rateLimited(ms: number, message: string): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError('RATE_LIMITED', message, { headers: { 'retry-after': String(seconds) } });
}

/**
 * Failed-login throttling (R13). Per client address: `perAddress` failures in 15 minutes lock the
 * address for the rest of the window. Per account: from the `perAccount`-th failure on, the
 * account is locked for 30 s, doubling with each further failure (at most 15 min). Unknown
 * addresses count like known ones, so the answers reveal nothing. A success clears the account's
 * counter, not the address's.
 */
export class LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly perAddress: number,
    private readonly perAccount: number,
  ) {}

  private keys(email: string, ip: string) {
    const account = emailKey(email);
    return {
      address: `auth:login-fail:ip:${ip}`,
      account: `auth:login-fail:acct:${account}`,
      lock: `auth:login-lock:acct:${account}`,
    };
  }

  /** Throws 429 RATE_LIMITED with Retry-After while the address or the account is locked. */
  async check(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    const [[, addressCount], [, addressTtl], [, lockTtl]] = (await this.redis
      .pipeline()
      .get(k.address)
      .pttl(k.address)
      .pttl(k.lock)
      .exec()) as Array<[Error | null, unknown]> as [[null, string | null], [null, number], [null, number]];
    if (Number(addressCount ?? 0) >= this.perAddress && addressTtl > 0) {
      throw rateLimited(addressTtl, 'Too many failed logins from this address; try again later.');
    }
    if (lockTtl > 0) throw rateLimited(lockTtl, 'Too many failed logins for this account; try again later.');
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    await this.redis.eval(HIT_SCRIPT, 1, k.address, WINDOW_MS);
    const [count] = (await this.redis.eval(HIT_SCRIPT, 1, k.account, WINDOW_MS)) as [number, number];
    if (count >= this.perAccount) {
      const lockMs = Math.min(WINDOW_MS, FIRST_LOCK_MS * 2 ** (count - this.perAccount));
      await this.redis.set(k.lock, '1', 'PX', lockMs);
    }
  }

  async recordSuccess(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    await this.redis.del(k.account, k.lock);
  }
}

/** A fixed-window limit on an action per key (AUTH-8 per address and hour). */
export async function hitLimit(redis: Redis, key: string, limit: number, windowMs: number, message: string): Promise<void> {
  const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, key, windowMs)) as [number, number];
  if (count > limit) throw rateLimited(ttl, message);
}

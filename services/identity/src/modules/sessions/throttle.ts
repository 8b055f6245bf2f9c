import type { Redis } from 'ioredis';
import { AppError } from '@msp/errors';
import type { KnownDevice } from './known-devices.repository.js';
import { emailKey } from './secrets.js';

/** R13: 10 failed logins per client address per 15 min. */
const ADDRESS_WINDOW_MS = 15 * 60 * 1000;
/** An account's failures are forgotten this long after the last one. */
const ACCOUNT_MEMORY_MS = 60 * 60 * 1000;
const FIRST_LOCK_MS = 30_000;
const MAX_LOCK_MS = 15 * 60 * 1000;
const DEVICE_WINDOW_MS = 15 * 60 * 1000;

/** INCR with the window started on the first hit, atomically; returns the count and the time left. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

/**
 * One more failure for an account (KEYS[1] the count, KEYS[2] the lock): the count is kept for
 * ARGV[1] ms from now; from the ARGV[2]-th failure on the account is locked for
 * ARGV[3] × 2^(count − ARGV[2]) ms, at most ARGV[4].
 */
const ACCOUNT_FAILURE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local limit = tonumber(ARGV[2])
if count >= limit then
  local lock = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ (count - limit))
  redis.call('SET', KEYS[2], '1', 'PX', math.floor(lock))
end
return count
`;

export function rateLimited(ms: number, message: string): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError('RATE_LIMITED', message, { headers: { 'retry-after': String(seconds) } });
}

export interface LoginLimits {
  /** Failed logins per client address per 15 min (R13). */
  perAddress: number;
  /** Failed logins per account before its backoff starts. */
  perAccount: number;
  /** Failed logins per known device per 15 min before it stops passing the other limits. */
  perDevice: number;
}

export interface Refusal {
  limit: 'address' | 'account';
  retryMs: number;
}

/**
 * Failed-login limits (policy and reasoning in the README, "Abuse policy"):
 * - per account (what an attacker cannot rotate): from the `perAccount`-th failure on, attempts
 *   are refused for 30 s, doubling with each further failure up to 15 min; the count is forgotten
 *   an hour after the last failure. Addresses without an account count the same way under their
 *   hash, so the answers tell nothing about which addresses have one;
 * - per client address: `perAddress` failures in 15 min refuse the address for the rest of it;
 * - a known device (KnownDevices) of the account passes both, so the owner is never locked out,
 *   until it fails `perDevice` times in 15 min itself.
 */
export class LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly limits: LoginLimits,
  ) {}

  /** What the account limit counts: the account when the address has one, else the address. */
  static subject(userId: number | null, email: string): string {
    return userId === null ? `email:${emailKey(email)}` : `user:${userId}`;
  }

  private keys(subject: string) {
    return { count: `auth:login-fail:${subject}`, lock: `auth:login-lock:${subject}` };
  }

  private addressKey(ip: string): string {
    return `auth:login-fail:ip:${ip}`;
  }

  private deviceKey(device: KnownDevice): string {
    return `auth:login-fail:device:${device.id}`;
  }

  /** Whether `device` is a known device of the account tried and still within its own limit. */
  async devicePasses(device: KnownDevice | null, userId: number | null): Promise<boolean> {
    if (!device || userId === null || device.userId !== userId) return false;
    const failures = Number((await this.redis.get(this.deviceKey(device))) ?? 0);
    return failures < this.limits.perDevice;
  }

  /** The limit that refuses this attempt now, if any. */
  async check(subject: string, ip: string): Promise<Refusal | null> {
    const k = this.keys(subject);
    const [[, addressCount], [, addressTtl], [, lockTtl]] = (await this.redis
      .pipeline()
      .get(this.addressKey(ip))
      .pttl(this.addressKey(ip))
      .pttl(k.lock)
      .exec()) as Array<[Error | null, unknown]> as [[null, string | null], [null, number], [null, number]];
    if (Number(addressCount ?? 0) >= this.limits.perAddress && addressTtl > 0) return { limit: 'address', retryMs: addressTtl };
    if (lockTtl > 0) return { limit: 'account', retryMs: lockTtl };
    return null;
  }

  /** Counts a wrong password against the address, the account and the known device it came from. */
  async recordFailure(subject: string, ip: string, device: KnownDevice | null): Promise<void> {
    const k = this.keys(subject);
    await this.redis.eval(HIT_SCRIPT, 1, this.addressKey(ip), ADDRESS_WINDOW_MS);
    await this.redis.eval(ACCOUNT_FAILURE_SCRIPT, 2, k.count, k.lock, ACCOUNT_MEMORY_MS, this.limits.perAccount, FIRST_LOCK_MS, MAX_LOCK_MS);
    if (device) await this.redis.eval(HIT_SCRIPT, 1, this.deviceKey(device), DEVICE_WINDOW_MS);
  }

  /**
   * A successful login or a password reset clears the account's count and lock (and, for a login
   * from a known device of the account, the device's count), not the address's.
   */
  async clear(subject: string, device: KnownDevice | null = null): Promise<void> {
    const k = this.keys(subject);
    await this.redis.del(k.count, k.lock, ...(device ? [this.deviceKey(device)] : []));
  }
}

/** A fixed-window limit on an action per key (AUTH-8 per address and hour). */
export async function hitLimit(redis: Pick<Redis, 'eval'>, key: string, limit: number, windowMs: number, message: string): Promise<void> {
  const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, key, windowMs)) as [number, number];
  if (count > limit) throw rateLimited(ttl, message);
}

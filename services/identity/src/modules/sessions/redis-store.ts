import { Redis } from 'ioredis';
import { REVOCATION_KEYS } from '@msp/contracts';

/**
 * Identity's Redis: revocation keys the gateway reads (REVOCATION_KEYS), login throttling, OAuth
 * state and one-time login codes, under the fleet's REDIS_KEY_PREFIX like every other key. Its own
 * connection so that commands fail fast instead of queueing while Redis is away.
 */
export function createIdentityRedis(url: string, keyPrefix: string): Redis {
  return new Redis(url, {
    keyPrefix,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}

export type UserLock = { kind: 'banned' } | { kind: 'deleted' } | { kind: 'suspended'; until: Date };

export class RevocationStore {
  constructor(
    private readonly redis: Redis,
    /** Longest life of an access token: a revoked-session key must outlive every token of the session. */
    private readonly accessTtlSeconds: number,
  ) {}

  async revokeSessions(sessionIds: string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    // A small margin over the token lifetime covers clock skew between identity and the gateway.
    for (const sid of sessionIds) pipeline.set(REVOCATION_KEYS.revokedSession(sid), '1', 'EX', this.accessTtlSeconds + 60);
    await execOrThrow(pipeline);
  }

  /** Writes (or clears, with null) the account lock the gateway enforces on every request. */
  async setUserLock(userId: number, lock: UserLock | null): Promise<void> {
    const key = REVOCATION_KEYS.userStatus(userId);
    if (!lock) {
      await this.redis.del(key);
      return;
    }
    if (lock.kind === 'banned' || lock.kind === 'deleted') {
      await this.redis.set(key, lock.kind);
      return;
    }
    const ms = lock.until.getTime() - Date.now();
    if (ms <= 0) {
      await this.redis.del(key);
      return;
    }
    await this.redis.set(key, `suspended:${lock.until.toISOString()}`, 'PX', ms);
  }

  /**
   * After an account is removed (ACC-3 grace over, ACC-5): the `deleted` lock stays only as long as
   * an access token of the account can live, then Redis forgets the account.
   */
  async expireDeletedLock(userId: number): Promise<void> {
    await this.redis.set(REVOCATION_KEYS.userStatus(userId), 'deleted', 'EX', this.accessTtlSeconds + 60);
  }

  /** Re-writes many locks at once (periodic sync after a Redis restart). */
  async syncLocks(entries: Array<{ userId: number; lock: UserLock }>, revokedSessionIds: string[]): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const { userId, lock } of entries) {
      const key = REVOCATION_KEYS.userStatus(userId);
      if (lock.kind === 'banned' || lock.kind === 'deleted') pipeline.set(key, lock.kind);
      else {
        const ms = lock.until.getTime() - Date.now();
        if (ms > 0) pipeline.set(key, `suspended:${lock.until.toISOString()}`, 'PX', ms);
      }
    }
    for (const sid of revokedSessionIds) pipeline.set(REVOCATION_KEYS.revokedSession(sid), '1', 'EX', this.accessTtlSeconds + 60);
    await execOrThrow(pipeline);
  }
}

export async function execOrThrow(pipeline: ReturnType<Redis['pipeline']>): Promise<Array<[Error | null, unknown]>> {
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([err]) => err);
  if (failed?.[0]) throw failed[0];
  return results;
}

import type { Redis } from 'ioredis';

/**
 * NOT-3's cached counter. Redis holds the exact unread count as last computed from the database
 * (written when a notification is created and on NOT-4) and every value lives at most
 * `ttlSeconds`: a value that went stale (a block, a ban, two writers racing) is recomputed from
 * the database within that time, so the badge may lag but never drifts.
 */
export class BadgeCounter {
  /** `namespace` names the database the counts come from (replicas share it; test runs do not). */
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly ttlSeconds: number,
    private readonly warn: (obj: object, msg: string) => void,
  ) {}

  private key(userId: number): string {
    return `notification:badge:${this.namespace}:${userId}`;
  }

  async get(userId: number): Promise<number | null> {
    try {
      const value = await this.redis.get(this.key(userId));
      if (value === null) return null;
      const n = Number(value);
      return Number.isSafeInteger(n) && n >= 0 ? n : null;
    } catch (err) {
      this.warn({ err }, 'badge counter unreadable; using the database');
      return null;
    }
  }

  /** ACC-5: the deleted user's cached count goes (throws when Redis cannot answer, so it is retried). */
  async forget(userId: number): Promise<void> {
    await this.redis.del(this.key(userId));
  }

  async set(userId: number, unreadCount: number): Promise<void> {
    try {
      await this.redis.set(this.key(userId), String(unreadCount), 'EX', this.ttlSeconds);
    } catch (err) {
      this.warn({ err }, 'badge counter not written; it will be recomputed');
    }
  }
}

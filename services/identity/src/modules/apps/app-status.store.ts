import type { Redis } from 'ioredis';
import { REVOCATION_KEYS } from '@msp/contracts';
import { execOrThrow } from '../sessions/redis-store.js';

/** The app-suspension keys the gateway reads with every app token (REVOCATION_KEYS.appStatus). */
export class AppStatusStore {
  constructor(private readonly redis: Redis) {}

  async set(clientId: string, suspended: boolean): Promise<void> {
    const key = REVOCATION_KEYS.appStatus(clientId);
    if (suspended) await this.redis.set(key, 'suspended');
    else await this.redis.del(key);
  }

  /** Re-writes every suspended app's key (after a Redis restart; the database is the truth). */
  async sync(suspendedClientIds: string[]): Promise<void> {
    if (suspendedClientIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const clientId of suspendedClientIds) pipeline.set(REVOCATION_KEYS.appStatus(clientId), 'suspended');
    await execOrThrow(pipeline);
  }
}

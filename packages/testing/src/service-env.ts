import { randomUUID } from 'node:crypto';
import { createTestDatabase } from './database.js';
import { dropRedisKeys } from './redis-keys.js';
import { testInfra } from './infra.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';
import { startS3rver } from './s3rver.js';

export interface ServiceTestEnv {
  /** Environment for the service's config loader. */
  env: Record<string, string>;
  /** The env's REDIS_KEY_PREFIX: what a test's own Redis client must use to see the service's keys. */
  redisKeyPrefix: string;
  nats: NatsServerHandle;
  close(): Promise<void>;
}

/**
 * Everything one test file needs to boot a service against real infrastructure, isolated from
 * other files and from a running dev fleet: a fresh migrated database, a private JetStream
 * server (durable consumers and streams are not shared) and a private s3rver. Redis is shared,
 * under a key prefix of the file's own (REDIS_KEY_PREFIX): every test database restarts its ids at
 * 1, so keys built from ids (play dedup, badge counters, revocations) would otherwise meet another
 * file's.
 */
export async function startServiceTestEnv(label: string, migrationsDir: string): Promise<ServiceTestEnv> {
  const [db, nats, s3] = await Promise.all([createTestDatabase(label, migrationsDir), startNatsServer(), startS3rver()]);
  const redisKeyPrefix = `t-${label}-${randomUUID().slice(0, 8)}:`;
  return {
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      DB_AUTO_MIGRATE: 'false',
      NATS_URL: nats.url,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      OUTBOX_POLL_MS: '100',
    },
    redisKeyPrefix,
    nats,
    async close() {
      await Promise.allSettled([nats.close(), s3.close(), dropRedisKeys(redisKeyPrefix)]);
      // A database left behind by a crashed test is dropped by the next run's cleanup of its prefix.
      await db.drop().catch(() => undefined);
    },
  };
}

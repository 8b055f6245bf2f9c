import type { FastifyBaseLogger } from 'fastify';
import { PrismaPg } from '@prisma/adapter-pg';
import { Redis } from 'ioredis';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type pg from 'pg';
import type { ServiceName } from '@msp/contracts';
import { createPgPool, pgStatement, prepareDatabase, sql } from '@msp/db';
import { configureStreams, connectNats, ensureStreams, EVENTS_MIGRATIONS, OutboxRelay } from '@msp/events';
import type { ReadinessCheck } from '@msp/http';
import { ObjectStorage } from '@msp/storage';

/** The configuration fields every service shares (see serviceEnvShape in @msp/config). */
export interface InfrastructureConfig {
  DATABASE_URL: string;
  DATABASE_POOL_SIZE: number;
  /** Wait for a pool connection (ms) before a 503; absent: 5,000. */
  DATABASE_POOL_TIMEOUT_MS?: number;
  /** statement_timeout of the pool's connections (ms; 0 none); absent: 15,000. */
  DATABASE_STATEMENT_TIMEOUT_MS?: number;
  DB_AUTO_MIGRATE: boolean;
  NATS_URL: string;
  REDIS_URL: string;
  /** Prefix of every Redis key (REDIS_KEY_PREFIX, one per fleet); '' when absent. */
  REDIS_KEY_PREFIX?: string;
  S3_ENDPOINT: string;
  S3_REGION: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  OUTBOX_POLL_MS: number;
  /** JetStream replicas of the streams (NATS_STREAM_REPLICAS); 1 when absent. */
  NATS_STREAM_REPLICAS?: number;
  /** Retention of published outbox rows and processed-event ids (days). */
  OUTBOX_RETENTION_DAYS?: number;
  PROCESSED_EVENT_RETENTION_DAYS?: number;
}

export interface InfrastructureOptions<P> {
  service: ServiceName;
  config: InfrastructureConfig;
  logger: FastifyBaseLogger;
  /** `prisma/migrations` of the service. */
  migrationsDir: string;
  /** Builds the service's own generated PrismaClient around the driver adapter. */
  createPrisma: (adapter: PrismaPg) => P;
}

export interface Infrastructure<P> {
  prisma: P;
  pool: pg.Pool;
  nc: NatsConnection;
  js: JetStreamClient;
  relay: OutboxRelay;
  redis: Redis;
  storage: ObjectStorage;
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

/**
 * Connects a service to its real dependencies: its own database (created and migrated when
 * DB_AUTO_MIGRATE), NATS with the service's stream, the outbox relay, Redis and its bucket.
 * `close()` releases them in reverse order (drain NATS last so the relay can finish).
 */
export async function startInfrastructure<P extends { $disconnect(): Promise<void> }>(options: InfrastructureOptions<P>): Promise<Infrastructure<P>> {
  const { config, logger, service } = options;
  if (config.DB_AUTO_MIGRATE) {
    const result = await prepareDatabase(config.DATABASE_URL, options.migrationsDir, { shared: EVENTS_MIGRATIONS });
    if (result.applied.length > 0) logger.info({ applied: result.applied }, 'migrations applied');
  }
  const pool = createPgPool(config.DATABASE_URL, config.DATABASE_POOL_SIZE, {
    connectionTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS ?? 5_000,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS ?? 15_000,
  });
  pool.on('error', (err) => logger.warn({ err }, 'database pool error'));
  const prisma = options.createPrisma(new PrismaPg(pool));

  const nc = await connectNats(config.NATS_URL, service);
  const jsm = await jetstreamManager(nc);
  configureStreams({ replicas: config.NATS_STREAM_REPLICAS ?? 1 });
  await ensureStreams(jsm, service);
  const js = jetstream(nc);
  const DAY_MS = 24 * 60 * 60 * 1000;
  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL,
    js,
    logger,
    pollMs: config.OUTBOX_POLL_MS,
    retentionMs: config.OUTBOX_RETENTION_DAYS ? config.OUTBOX_RETENTION_DAYS * DAY_MS : undefined,
    processedRetentionMs: config.PROCESSED_EVENT_RETENTION_DAYS ? config.PROCESSED_EVENT_RETENTION_DAYS * DAY_MS : undefined,
  });
  await relay.start();

  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_KEY_PREFIX ?? '',
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));

  const storage = new ObjectStorage({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    bucket: config.S3_BUCKET,
  });
  await storage.ensureBucket();

  const readiness: Record<string, ReadinessCheck> = {
    database: () => pool.query(pgStatement(sql`SELECT 1`)),
    nats: async () => {
      if (nc.isClosed()) throw new Error('closed');
      await nc.rtt();
    },
    redis: () => redis.ping(),
    storage: () => storage.check(),
  };

  return {
    prisma,
    pool,
    nc,
    js,
    relay,
    redis,
    storage,
    readiness,
    async close() {
      await relay.stop().catch((err) => logger.warn({ err }, 'relay stop failed'));
      await nc.drain().catch((err: unknown) => logger.warn({ err }, 'NATS drain failed'));
      await prisma.$disconnect().catch((err: unknown) => logger.warn({ err }, 'Prisma disconnect failed'));
      await pool.end().catch((err: unknown) => logger.warn({ err }, 'pg pool end failed'));
      redis.disconnect();
    },
  };
}

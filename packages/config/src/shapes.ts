import { z } from 'zod';

import { SERVICE_NAMES, type ServiceName } from '@msp/contracts';
export { SERVICE_NAMES, type ServiceName };

/** Local ports; in Kubernetes every service listens on its own default and is reached by DNS name. */
export const DEFAULT_PORTS: Record<ServiceName | 'gateway', number> = {
  gateway: 8080,
  identity: 8081,
  catalog: 8082,
  'media-processing': 8083,
  social: 8084,
  messaging: 8085,
  notification: 8086,
  billing: 8087,
};

export function databaseUrlFor(service: ServiceName, base = 'postgresql://postgres@127.0.0.1:5432'): string {
  return `${base}/msp_${service.replace(/-/g, '_')}`;
}

const boolFromEnv = (fallback: boolean) => z.stringbool().default(fallback);

/** Settings every process of the fleet reads. Local defaults let a newcomer run without a .env file. */
export const commonEnvShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Log lines are written to stdout in batches of this many bytes (or every 200 ms, and at exit):
   * one write per request was one wake-up of the log reader per request. 0 writes line by line;
   * at most 16,000 (pino's SonicBoom writes at most 16 KiB at once and refuses a larger buffer).
   */
  LOG_BUFFER_BYTES: z.coerce.number().int().min(0).max(16_000).default(4096),
  /** Loopback by default: a development fleet is not reachable from the network (k8s and compose set 0.0.0.0). */
  HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  /**
   * Prefix of every Redis key the process reads or writes (ioredis `keyPrefix`). One value for the
   * whole fleet: the gateway and the notification service read the revocation keys identity
   * writes. Empty in a deployment with a Redis of its own; a fleet sharing a Redis with another one
   * (tests: one per test file or e2e fleet) sets its own, so that ids restarting at 1 in each test
   * database never meet another file's keys.
   */
  REDIS_KEY_PREFIX: z.string().max(100).default(''),
  /** Where the web app lives; links built by the API point there. */
  WEB_BASE_URL: z.url().default('http://localhost:3000'),
  /** Public origin of the gateway (absolute media URLs, OpenAPI servers). */
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
} as const;

/** Settings of a service that owns a database, a NATS stream and object storage. */
/**
 * What every service must be given explicitly in production (`loadConfig`'s `requiredInProduction`):
 * its infrastructure from `serviceEnvShape` and its public addresses from `serviceUrlsShape`. A
 * service adds its own (a signing secret, a provider key) after these.
 */
export const SERVICE_REQUIRED_IN_PRODUCTION = [
  'DATABASE_URL',
  'NATS_URL',
  'REDIS_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'WEB_BASE_URL',
  'PUBLIC_BASE_URL',
] as const;

export function serviceEnvShape(service: ServiceName) {
  return {
    ...commonEnvShape,
    PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS[service]),
    DATABASE_URL: z.url().default(databaseUrlFor(service)),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
    /** How long a request waits for a free database connection before it answers 503 with Retry-After (ms). */
    DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
    /**
     * statement_timeout of the service's pool connections (ms): a statement running longer is cancelled
     * and the request answers 503 with Retry-After. Background work that needs longer sets its own
     * (SET LOCAL) inside its transaction; migrations run on connections of their own.
     */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
    /** Create the database and apply committed migrations at start (development default). */
    DB_AUTO_MIGRATE: boolFromEnv(true),
    NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
    S3_ENDPOINT: z.url().default('http://127.0.0.1:4569'),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ACCESS_KEY: z.string().min(1).default('S3RVER'),
    S3_SECRET_KEY: z.string().min(1).default('S3RVER'),
    S3_BUCKET: z.string().min(3).default(`msp-${service}`),
    /**
     * Verifies the gateway's signed X-Gateway-Assertion (caller and client address): the key the
     * gateway derives for this service from its GATEWAY_SIGNING_KEY (`pnpm keys:derive`).
     * Development derives it from the development master key.
     */
    GATEWAY_ASSERTION_KEY: z.string().min(16).optional(),
    /** Shared by the fleet's services for the X-Service-Token of `/internal/*` calls. */
    INTERNAL_SERVICE_KEY: z.string().min(16).optional(),
    /** JetStream replication factor of the streams this service creates (3 on the three-node NATS of k8s). */
    NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
    /** Days a processed-event id (consumer de-duplication) and a published outbox row are kept. */
    PROCESSED_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(14),
    OUTBOX_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
    /** Outbox relay poll interval; writes also wake the relay at once. */
    OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  } as const;
}

/** Base URLs of the fleet's services for service-to-service calls. */
export const serviceUrlsShape = {
  IDENTITY_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS.identity}`),
  CATALOG_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS.catalog}`),
  MEDIA_PROCESSING_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS['media-processing']}`),
  SOCIAL_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS.social}`),
  MESSAGING_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS.messaging}`),
  NOTIFICATION_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS.notification}`),
  BILLING_URL: z.url().default(`http://127.0.0.1:${DEFAULT_PORTS.billing}`),
} as const;

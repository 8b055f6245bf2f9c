import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, dropRedisKeys, freePort, startNatsServer, startS3rver, testInfra, type NatsServerHandle, type TestDatabase } from '@msp/testing';
import * as identity from '@msp/identity';
import * as catalog from '@msp/catalog';
import * as mediaProcessing from '@msp/media-processing';
import * as social from '@msp/social';
import * as messaging from '@msp/messaging';
import * as notification from '@msp/notification';
import * as billing from '@msp/billing';
import { buildGateway, loadGatewayConfig } from '@msp/gateway';

type ServiceName = 'identity' | 'catalog' | 'media-processing' | 'social' | 'messaging' | 'notification' | 'billing';

// Each service package exports buildApp(config, { logger }) and its config loader.
// `logger` true: the services log (to @msp/http's log destination, which a test may capture).
const modules: Record<ServiceName, { build: (env: Record<string, string>, logger: boolean) => Promise<FastifyInstance> }> = {
  identity: { build: (env, logger) => identity.buildApp(identity.loadIdentityConfig(env), { logger }) },
  catalog: { build: (env, logger) => catalog.buildApp(catalog.loadCatalogConfig(env), { logger }) },
  'media-processing': {
    build: (env, logger) => mediaProcessing.buildApp(mediaProcessing.loadMediaProcessingConfig(env), { logger }),
  },
  social: { build: (env, logger) => social.buildApp(social.loadSocialConfig(env), { logger }) },
  messaging: { build: (env, logger) => messaging.buildApp(messaging.loadMessagingConfig(env), { logger }) },
  notification: { build: (env, logger) => notification.buildApp(notification.loadNotificationConfig(env), { logger }) },
  billing: { build: (env, logger) => billing.buildApp(billing.loadBillingConfig(env), { logger }) },
};

export const SERVICES = Object.keys(modules) as ServiceName[];

function migrationsOf(service: ServiceName): string {
  return fileURLToPath(new URL(`../../../services/${service}/prisma/migrations`, import.meta.url));
}

const envName = (s: ServiceName) => `${s.toUpperCase().replace(/-/g, '_')}_URL`;

/** The whole fleet in one process, on real infrastructure, each service on its own port. */
export class Fleet {
  readonly apps = new Map<ServiceName, FastifyInstance>();
  readonly ports = new Map<ServiceName, number>();
  private readonly dbs = new Map<ServiceName, TestDatabase>();
  gateway!: FastifyInstance;
  gatewayUrl = '';
  nats!: NatsServerHandle;
  private closeS3: () => Promise<void> = async () => undefined;
  private s3Env: Record<string, string> = {};
  private serviceEnv: Partial<Record<ServiceName, Record<string, string>>> = {};
  /** The fleet's REDIS_KEY_PREFIX (every service and the gateway). */
  redisKeyPrefix = '';

  /**
   * `logs: true` turns the processes' loggers on (LOG_LEVEL of the env decides the level).
   * `publicHost` names the gateway in its public URL (default 127.0.0.1): `localhost` gives the
   * browser a secure context and a valid WebAuthn RP ID (passkeys.test.ts).
   */
  constructor(private readonly options: { logs?: boolean; publicHost?: string } = {}) {}

  /**
   * Boots everything. `serviceEnv` adds settings per service (e.g. SMTP or identity-provider
   * endpoints of a test); every service also gets the others' *_URL.
   */
  async start(gatewayEnv: Record<string, string> = {}, serviceEnv: Partial<Record<ServiceName, Record<string, string>>> = {}): Promise<void> {
    // One Redis serves every test file: every key of this fleet (limits, revocations, play dedup,
    // badges) gets the fleet's prefix, so that one file's failed logins or ids never meet another's;
    // one prefix for the whole fleet, since the gateway and notification read what identity writes.
    this.redisKeyPrefix = gatewayEnv.REDIS_KEY_PREFIX ?? `e2e-${randomUUID().slice(0, 8)}:`;
    gatewayEnv = { REDIS_KEY_PREFIX: this.redisKeyPrefix, ...gatewayEnv };
    this.serviceEnv = serviceEnv;
    const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
    this.nats = nats;
    this.closeS3 = s3.close;
    this.s3Env = { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey };
    await Promise.all(SERVICES.map(async (s) => this.dbs.set(s, await createTestDatabase(`e2e_${s}`, migrationsOf(s)))));
    // Ports first, so every service can be told where the others are.
    for (const s of SERVICES) this.ports.set(s, await freePort());
    const gatewayPort = await freePort();
    this.gatewayUrl = `http://${this.options.publicHost ?? '127.0.0.1'}:${gatewayPort}`;
    for (const s of SERVICES) await this.startService(s);
    const urls = Object.fromEntries(SERVICES.map((s) => [envName(s), this.urlOf(s)]));
    this.gateway = await buildGateway(
      loadGatewayConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        REDIS_URL: testInfra().redisUrl,
        ...urls,
        JWKS_URL: `${this.urlOf('identity')}/.well-known/jwks.json`,
        UPSTREAM_TIMEOUT_MS: '3000',
        PUBLIC_BASE_URL: this.gatewayUrl,
        ...gatewayEnv,
      }),
      { logger: this.options.logs === true },
    );
    await this.gateway.listen({ port: gatewayPort, host: '127.0.0.1' });
  }

  env(service: ServiceName): Record<string, string> {
    return {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      DATABASE_URL: this.dbs.get(service)!.url,
      DB_AUTO_MIGRATE: 'false',
      NATS_URL: this.nats.url,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: this.redisKeyPrefix,
      OUTBOX_POLL_MS: '100',
      PUBLIC_BASE_URL: this.gatewayUrl,
      ...Object.fromEntries(SERVICES.map((s) => [envName(s), this.urlOf(s)])),
      ...this.s3Env,
      // Trending and search order follow plays within a second here (catalog folds after 30 s by default: docs/insights.md).
      ...(service === 'catalog' ? { PLAY_FOLD_SECONDS: '1' } : {}),
      ...this.serviceEnv[service],
    };
  }

  urlOf(service: ServiceName): string {
    return `http://127.0.0.1:${this.ports.get(service)}`;
  }

  /** Starts (or restarts, on the same port) one service. */
  async startService(service: ServiceName): Promise<FastifyInstance> {
    const app = await modules[service].build(this.env(service), this.options.logs === true);
    await app.listen({ port: this.ports.get(service) ?? 0, host: '127.0.0.1' });
    this.ports.set(service, (app.server.address() as AddressInfo).port);
    this.apps.set(service, app);
    return app;
  }

  async stopService(service: ServiceName): Promise<void> {
    await this.apps.get(service)?.close();
    this.apps.delete(service);
  }

  async close(): Promise<void> {
    await this.gateway?.close();
    await Promise.allSettled([...this.apps.keys()].map((s) => this.stopService(s)));
    await Promise.allSettled([this.nats?.close(), this.closeS3(), dropRedisKeys(this.redisKeyPrefix)]);
    await Promise.allSettled([...this.dbs.values()].map((d) => d.drop()));
  }

  /** Exported for tests that need a service's own address (internal routes, direct checks). */
  get serviceUrls(): Record<string, string> {
    return Object.fromEntries(SERVICES.map((s) => [envName(s), this.urlOf(s)]));
  }

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.gatewayUrl}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  }
}

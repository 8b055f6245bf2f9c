import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { expect } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { Redis } from 'ioredis';
import { SERVICE_NAMES, type AccessTokenClaims, type ServiceName } from '@msp/contracts';
import { createTestJwks, dropRedisKeys, freePort, testInfra, type TestJwks } from '@msp/testing';
import { buildGateway, loadGatewayConfig, type GatewayConfig } from '../src/app.js';

/** What a fake service saw of a proxied request. */
export interface Echo {
  service: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  bodyLength: number;
  bodySha256: string;
  body: string;
}

export interface FakeServiceOptions {
  /** Answer every /api request only after this long (a hanging service). */
  delayMs?: number;
  ready?: 'up' | 'down';
  openapi?: Record<string, unknown>;
  /** Serve an echoing websocket at /api/ws (notification). */
  websocket?: boolean;
}

export interface FakeService {
  name: ServiceName;
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * A stand-in for one service: echoes method, url, headers and a digest of the raw body bytes.
 * `?fakeStatus=NNN` makes it answer that status with an ErrorResponse-like body of its own,
 * `?fakeVary=…` sends that Vary header.
 */
export async function startFakeService(name: ServiceName, options: FakeServiceOptions = {}): Promise<FakeService> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 512 * 1024 * 1024 }, (_request, body, done) => done(null, body));

  app.get('/ready', async (_request, reply) => {
    if (options.ready === 'down') {
      return reply.code(503).send({ status: 503, code: 'SERVICE_UNAVAILABLE', service: name, checks: { database: 'down' } });
    }
    return { status: 'up', service: name, checks: { database: 'up' } };
  });
  app.get('/openapi.json', async (_request, reply) => (options.openapi ? options.openapi : reply.code(404).send({ code: 'ROUTE_NOT_FOUND' })));

  if (options.websocket) {
    await app.register(websocket);
    app.get('/api/ws', { websocket: true }, (socket, request) => {
      socket.send(`hello from ${name}; forged user header: ${String(request.headers['x-user-id'] ?? 'none')}`);
      socket.on('message', (message: Buffer) => socket.send(`echo:${message.toString()}`));
    });
  }

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/api/*',
    handler: async (request, reply) => {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      const query = request.query as Record<string, string>;
      if (query.fakeVary) reply.header('vary', query.fakeVary);
      const fakeStatus = Number(query.fakeStatus ?? 200);
      if (fakeStatus !== 200) {
        return reply
          .code(fakeStatus)
          .header('x-fake', name)
          .send({
            timestamp: new Date().toISOString(),
            status: fakeStatus,
            error: 'From service',
            code: 'TRACK_NOT_FOUND',
            message: `answered by ${name}`,
            path: request.url.split('?')[0],
            requestId: String(request.headers['x-request-id']),
          });
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const echo: Echo = {
        service: name,
        method: request.method,
        url: request.url,
        headers: request.headers,
        bodyLength: body.length,
        bodySha256: createHash('sha256').update(body).digest('hex'),
        body: body.length <= 64 * 1024 ? body.toString('utf8') : '',
      };
      return echo;
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { name, url: `http://127.0.0.1:${port}`, app, close: () => app.close() };
}

export interface Harness {
  url: string;
  app: FastifyInstance;
  config: GatewayConfig;
  jwks: TestJwks;
  services: Map<ServiceName, FakeService>;
  /** A Redis client without the gateway's key prefix; use `key()` to address the gateway's keys. */
  redis: Redis;
  key(name: string): string;
  token(overrides?: Partial<AccessTokenClaims>, options?: { expiresIn?: string | number; signWithForeignKey?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Per service: options of its fake, or `'stopped'` for a port nobody listens on. */
  services?: Partial<Record<ServiceName, FakeServiceOptions | 'stopped'>>;
  /** Log to @msp/http's log destination (at `env.LOG_LEVEL`) instead of not at all. */
  logger?: boolean;
}

/**
 * A gateway in front of seven fake services, with a test JWKS and its own Redis key prefix so
 * that test files never see each other's counters or revocation keys.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const jwks = await createTestJwks();
  const services = new Map<ServiceName, FakeService>();
  const urls: Partial<Record<ServiceName, string>> = {};
  for (const name of SERVICE_NAMES) {
    const serviceOptions = options.services?.[name] ?? {};
    if (serviceOptions === 'stopped') {
      urls[name] = `http://127.0.0.1:${await freePort()}`;
      continue;
    }
    const fake = await startFakeService(name, { websocket: name === 'notification', ...serviceOptions });
    services.set(name, fake);
    urls[name] = fake.url;
  }
  const prefix = `test:gateway:${randomUUID()}:`;
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_URL: testInfra().redisUrl,
    REDIS_KEY_PREFIX: prefix,
    JWKS_URL: jwks.url,
    PUBLIC_BASE_URL: 'http://gateway.test',
    IDENTITY_URL: urls.identity,
    CATALOG_URL: urls.catalog,
    MEDIA_PROCESSING_URL: urls['media-processing'],
    SOCIAL_URL: urls.social,
    MESSAGING_URL: urls.messaging,
    NOTIFICATION_URL: urls.notification,
    BILLING_URL: urls.billing,
    ...options.env,
  });
  const app = await buildGateway(config, { logger: options.logger ?? false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const redis = new Redis(testInfra().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // A test without Redis still runs; the tests that need it fail on their own assertions.
  await redis.connect().catch(() => undefined);

  return {
    url: `http://127.0.0.1:${port}`,
    app,
    config,
    jwks,
    services,
    redis,
    key: (name) => `${prefix}${name}`,
    token: (overrides = {}, signOptions = {}) =>
      jwks.sign({ sub: '42', username: 'alice', role: 'LISTENER', tier: 'FREE', sid: randomUUID(), jti: randomUUID(), ...overrides }, signOptions),
    async close() {
      await app.close();
      await Promise.all([...services.values()].map((service) => service.close()));
      await jwks.close();
      redis.disconnect();
      await dropRedisKeys(prefix);
    },
  };
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Asserts the full ErrorResponse record (docs/api.md) (every field, requestId = X-Request-Id) and returns it. */
export async function expectError(response: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const body = await json(response);
  expect({ status: response.status, body }).toMatchObject({ status, body: { status, code } });
  expect(body).toEqual({
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    status,
    error: expect.any(String),
    code,
    message: expect.any(String),
    path: expect.stringMatching(/^\//),
    requestId: response.headers.get('x-request-id'),
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return body;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A request through node:http, for what fetch would not send as written: un-normalised paths,
 * chunked bodies without Content-Length, bodies larger than the server wants to read.
 */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: http.OutgoingHttpHeaders; chunks?: Buffer[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // host/port/path given apart: a URL string would be normalised by WHATWG URL before sending.
    const { hostname, port } = new URL(url);
    const request = http.request({ hostname, port, path: options.path, method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts) }));
      response.on('error', reject);
    });
    // The gateway may answer (413) and close before the whole body is written: that is expected.
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end();
  });
}

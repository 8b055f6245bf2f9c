import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { freePort } from '@msp/testing';
import { buildGateway } from '../src/app.js';
import { rawRequest, startHarness, type Harness, type RawResponse } from './helpers.js';

/**
 * The fast lane (src/fast-lane.ts) against the proxy route it stands in for: two gateways with
 * the same configuration in front of the same services, one with the lane (FAST_LANE=true), one
 * without, get the same requests; every answer must be the same (status, headers, body), but for
 * what differs by nature (Date, timestamps, the trace context and the assertion signed over it).
 * A count of the requests the lane's gateway hands to Fastify (`app.routing`) tells which ones the
 * lane answered itself.
 */
interface Pair {
  h: Harness;
  lane: FastifyInstance;
  laneUrl: string;
  /** Requests the lane's gateway handed to Fastify. */
  fastifySaw(): number;
  close(): Promise<void>;
}

async function startPair(options: Parameters<typeof startHarness>[0] = {}): Promise<Pair> {
  // The harness's own gateway is the reference: the proxy route only.
  const h = await startHarness({ ...options, env: { ...options.env, FAST_LANE: 'false' } });
  const lane = await buildGateway({ ...h.config, FAST_LANE: true }, { logger: false });
  // Fastify's handler, as the lane's gateway calls it for what the lane leaves (app.ts).
  let seen = 0;
  const routing = lane.routing.bind(lane);
  lane.routing = (req, res) => {
    seen += 1;
    routing(req, res);
  };
  await lane.listen({ host: '127.0.0.1', port: 0 });
  const address = lane.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    h,
    lane,
    laneUrl: `http://127.0.0.1:${port}`,
    fastifySaw: () => seen,
    async close() {
      await lane.close();
      await h.close();
    },
  };
}

const VOLATILE_ECHO_HEADERS = ['traceparent', 'tracestate', 'x-gateway-assertion'];

/** An answer with what differs by nature taken out. */
function comparable(response: RawResponse): { status: number; headers: http.IncomingHttpHeaders; body: unknown } {
  const { date: _date, ...headers } = response.headers;
  const text = response.body.toString('utf8');
  let body: unknown = text;
  if (text.startsWith('{')) {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    delete parsed.timestamp;
    const echoed = parsed.headers as Record<string, unknown> | undefined;
    if (echoed) for (const name of VOLATILE_ECHO_HEADERS) if (echoed[name] !== undefined) echoed[name] = '(volatile)';
    body = parsed;
  }
  return { status: response.status, headers, body };
}

/** The same request to both gateways; the lane's answer (made comparable) after asserting it equals the proxy route's. */
async function same(pair: Pair, path: string, headers: http.OutgoingHttpHeaders = {}, method = 'GET') {
  const sent = { host: 'gateway.test', 'x-request-id': `parity-${randomUUID()}`, ...headers };
  const viaLane = comparable(await rawRequest(pair.laneUrl, { method, path, headers: sent }));
  const viaFastify = comparable(await rawRequest(pair.h.url, { method, path, headers: sent }));
  expect(viaLane).toEqual(viaFastify);
  return viaLane;
}

/** Asserts that the lane answered `run`'s requests itself (none reached Fastify). */
async function inLane<T>(pair: Pair, run: () => Promise<T>): Promise<T> {
  const before = pair.fastifySaw();
  const result = await run();
  expect(pair.fastifySaw()).toBe(before);
  return result;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('fast lane: the same answers as the proxy route (src/fast-lane.ts)', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({
      env: { CORS_ORIGINS: 'http://localhost:3000', UPSTREAM_TIMEOUT_MS: '300' },
      services: { billing: 'stopped', messaging: { delayMs: 1000 } },
    });
  });
  afterAll(async () => {
    await pair?.close();
  });

  it('TRK-20 anonymous public read, with the security and CORS headers', async () => {
    const answer = await inLane(pair, () => same(pair, '/api/genres?limit=5'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect((answer.body as { url: string }).url).toBe('/api/genres?limit=5');
  });

  it('TRK-6 optional route with a valid token: the caller is forwarded', async () => {
    const token = await pair.h.token({ sub: '7001' });
    const answer = await inLane(pair, () => same(pair, '/api/tracks/123', bearer(token)));
    expect(answer.status).toBe(200);
    expect((answer.body as { headers: Record<string, string> }).headers['x-user-id']).toBe('7001');
  });

  it('BLK-3 bearer route: without a token 401, with a bad token 401, with a token 200', async () => {
    await inLane(pair, async () => {
      expect((await same(pair, '/api/users/me/blocked')).status).toBe(401);
      expect((await same(pair, '/api/users/me/blocked', bearer('not.a.token'))).status).toBe(401);
      const foreign = await pair.h.token({ sub: '7002' }, { signWithForeignKey: true });
      expect((await same(pair, '/api/users/me/blocked', bearer(foreign))).status).toBe(401);
      expect((await same(pair, '/api/users/me/blocked', bearer(await pair.h.token({ sub: '7003' })))).status).toBe(200);
    });
  });

  it('revoked session 401, banned 403, suspended 403, admin route as a listener 403', async () => {
    const h = pair.h;
    await h.redis.set(h.key('auth:revoked-session:parity-revoked'), '1', 'EX', 60);
    await h.redis.set(h.key('auth:user-status:7005'), 'banned', 'EX', 60);
    await h.redis.set(h.key('auth:user-status:7006'), `suspended:${new Date(Date.now() + 3_600_000).toISOString()}`, 'EX', 60);
    await inLane(pair, async () => {
      expect((await same(pair, '/api/users/me/blocked', bearer(await h.token({ sub: '7004', sid: 'parity-revoked' })))).status).toBe(401);
      expect((await same(pair, '/api/users/me/blocked', bearer(await h.token({ sub: '7005' })))).status).toBe(403);
      expect((await same(pair, '/api/users/me/blocked', bearer(await h.token({ sub: '7006' })))).status).toBe(403);
      expect((await same(pair, '/api/admin/reports', bearer(await h.token({ sub: '7007' })))).status).toBe(403);
      expect((await same(pair, '/api/admin/reports', bearer(await h.token({ sub: '7008', role: 'ADMIN' })))).status).toBe(200);
    });
  });

  it("a service's 404 and 500 pass through with its own headers", async () => {
    await inLane(pair, async () => {
      const notFound = await same(pair, '/api/tracks/9?fakeStatus=404');
      expect(notFound.status).toBe(404);
      expect(notFound.headers['x-fake']).toBe('catalog');
      expect((await same(pair, '/api/tracks/9?fakeStatus=500')).status).toBe(500);
    });
  });

  it('a stopped service 503 with Retry-After, a slow one 504', async () => {
    await inLane(pair, async () => {
      const stopped = await same(pair, '/api/subscription/status', bearer(await pair.h.token({ sub: '7009' })));
      expect(stopped.status).toBe(503);
      expect(stopped.headers['retry-after']).toBe('5');
      expect((await same(pair, '/api/conversations', bearer(await pair.h.token({ sub: '7010' })))).status).toBe(504);
    });
  });

  it("a service's Vary keeps the gateway's Origin in it", async () => {
    await inLane(pair, async () => {
      expect((await same(pair, '/api/genres?fakeVary=Accept-Encoding')).headers.vary).toBe('Accept-Encoding, Origin');
      expect((await same(pair, '/api/genres?fakeVary=origin')).headers.vary).toBe('origin');
      expect((await same(pair, '/api/genres?fakeVary=*')).headers.vary).toBe('*');
    });
  });

  it('HEAD: the same status and headers, no body', async () => {
    const answer = await inLane(pair, () => same(pair, '/api/genres', {}, 'HEAD'));
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
  });

  it('CORS: an allowed origin is named, another is not', async () => {
    await inLane(pair, async () => {
      const allowed = await same(pair, '/api/genres', { origin: 'http://localhost:3000' });
      expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:3000');
      expect(allowed.headers['access-control-allow-credentials']).toBe('true');
      expect(allowed.headers['access-control-expose-headers']).toBe('x-request-id, retry-after, deprecation, ratelimit, ratelimit-policy');
      const other = await same(pair, '/api/genres', { origin: 'https://evil.example' });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('a client X-Request-Id that is not sane is replaced, as Fastify does', async () => {
    const answer = await inLane(pair, () => rawRequest(pair.laneUrl, { path: '/api/genres', headers: { 'x-request-id': 'bad id with spaces' } }));
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('forged identity and trust headers from the client are dropped', async () => {
    const answer = await inLane(pair, () =>
      same(pair, '/api/genres', { 'x-user-id': '1', 'x-user-role': 'ADMIN', 'x-gateway-assertion': 'forged', 'x-forwarded-for': '6.6.6.6' }),
    );
    const echoed = (answer.body as { headers: Record<string, string> }).headers;
    expect(echoed['x-user-id']).toBeUndefined();
    expect(echoed['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('what the lane leaves to Fastify: bodies, percent-encoding, unknown paths, 405, gateway routes', async () => {
    const before = pair.fastifySaw();
    expect((await same(pair, '/api/tracks/%E2%82%AC')).status).toBe(200);
    expect((await same(pair, '/api/tracks/%ZZ')).status).toBe(400);
    expect((await same(pair, '/api/no-such-thing')).status).toBe(404);
    expect((await same(pair, '/api/genres', {}, 'DELETE')).status).toBe(405);
    expect((await same(pair, `/api/tracks/${'a'.repeat(600)}`)).status).toBe(404);
    expect((await same(pair, '/api/genres', { 'content-length': '0' })).status).toBe(200);
    // The gateway's own route (503 here: billing is stopped).
    expect((await rawRequest(pair.laneUrl, { path: '/api/health' })).status).toBe(503);
    expect(pair.fastifySaw() - before).toBe(7);
  });
});

describe('fast lane: the client rate limit', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ env: { RATE_LIMIT_CLIENT_PER_MINUTE: '4' } });
  });
  afterAll(async () => {
    await pair?.close();
  });

  it('429 RATE_LIMITED with Retry-After once the budget is spent, on both', async () => {
    // Both gateways count the same client key: 2 requests each spend the budget of 4.
    await same(pair, '/api/genres');
    await same(pair, '/api/genres');
    const limited = await inLane(pair, () => same(pair, '/api/genres'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('fast lane: behind a trusted proxy (TRUST_PROXY)', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ env: { TRUST_PROXY: 'loopback' } });
  });
  afterAll(async () => {
    await pair?.close();
  });

  it('the client address, protocol and host come from X-Forwarded-*', async () => {
    const answer = await inLane(pair, () =>
      same(pair, '/api/genres', { 'x-forwarded-for': '203.0.113.9, 127.0.0.1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'music.example' }),
    );
    const echoed = (answer.body as { headers: Record<string, string> }).headers;
    expect(echoed['x-forwarded-for']).toBe('203.0.113.9');
    expect(echoed['x-forwarded-proto']).toBe('https');
    expect(echoed['x-forwarded-host']).toBe('music.example');
  });
});

describe('fast lane: Redis down', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
  });
  afterAll(async () => {
    await pair?.close();
  });

  it('bearer route 503 (fails closed), public route proxied (fails open)', async () => {
    await inLane(pair, async () => {
      expect((await same(pair, '/api/users/me/blocked', bearer(await pair.h.token({ sub: '7011' })))).status).toBe(503);
      expect((await same(pair, '/api/genres')).status).toBe(200);
    });
  });
});

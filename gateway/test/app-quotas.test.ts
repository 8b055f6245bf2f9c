import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { APP_USAGE_KEYS, usageDay } from '@msp/contracts';
import { buildGateway } from '../src/app.js';
import { rateLimitHeader, rateLimitPolicyHeader, readQuota } from '../src/rate-limit.js';
import { rawRequest, startHarness, type Harness, type RawResponse } from './helpers.js';

/**
 * App-token quotas (docs/developer-platform.md "Quotas"): per app per user and per app, counted in
 * the gate script's one round trip, with the RateLimit headers on every app-token answer, the same
 * through the proxy route (POST) and the fast lane (GET).
 */
let h: Harness;
let lane: FastifyInstance;
let laneUrl: string;

const QUOTA_ENV = {
  APP_QUOTA_PER_USER: '3',
  APP_QUOTA_PER_USER_WINDOW_SECONDS: '600',
  APP_QUOTA_PER_APP: '5',
  APP_QUOTA_PER_APP_WINDOW_SECONDS: '3600',
};

beforeAll(async () => {
  h = await startHarness({ env: { FAST_LANE: 'false', ...QUOTA_ENV } });
  lane = await buildGateway({ ...h.config, FAST_LANE: true }, { logger: false });
  await lane.listen({ host: '127.0.0.1', port: 0 });
  const address = lane.server.address();
  laneUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await lane?.close();
  await h?.close();
});

const appToken = (clientId: string, sub: string) => h.token({ sub, azp: clientId, scope: 'read engage', sid: randomUUID() });

async function call(url: string, token: string, method: 'GET' | 'POST' = 'GET', path = '/api/users/me'): Promise<RawResponse> {
  const body = method === 'POST' ? [Buffer.from('{}')] : undefined;
  return rawRequest(url, {
    method,
    path,
    headers: { host: 'gateway.test', authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    chunks: body,
  });
}

function parseRateLimit(value: unknown): Record<string, { r: number; t: number }> {
  const out: Record<string, { r: number; t: number }> = {};
  for (const item of String(value).split(',')) {
    const match = /^\s*"(\w+)";r=(\d+);t=(\d+)\s*$/.exec(item);
    if (!match) throw new Error(`not a RateLimit item: ${item}`);
    out[match[1]!] = { r: Number(match[2]), t: Number(match[3]) };
  }
  return out;
}

describe('USR-1 ENG-1 app quotas: RateLimit headers, per-user and per-app budgets', () => {
  it('every app-token answer carries RateLimit-Policy and RateLimit (proxy route and fast lane)', async () => {
    const token = await appToken('app_quota_headers', '9201');
    const first = await call(laneUrl, token);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"user";q=3;w=600, "app";q=5;w=3600');
    const firstLimit = parseRateLimit(first.headers.ratelimit);
    expect(firstLimit.user!.r).toBe(2);
    expect(firstLimit.app!.r).toBe(4);
    expect(firstLimit.user!.t).toBeGreaterThan(590);
    expect(firstLimit.user!.t).toBeLessThanOrEqual(600);

    const second = await call(h.url, token, 'POST', '/api/tracks/1/like');
    expect(second.status).toBe(200);
    expect(second.headers['ratelimit-policy']).toBe('"user";q=3;w=600, "app";q=5;w=3600');
    expect(parseRateLimit(second.headers.ratelimit)).toMatchObject({ user: { r: 1 }, app: { r: 3 } });

    // An answer the gateway refuses itself carries them too (403 outside the scopes).
    const refused = await call(laneUrl, token, 'GET', '/api/conversations');
    expect(refused.status).toBe(403);
    expect(parseRateLimit(refused.headers.ratelimit)).toMatchObject({ user: { r: 0 } });
  });

  it('a user session token is neither counted nor given the headers', async () => {
    const session = await h.token({ sub: '9202' });
    for (let i = 0; i < 5; i++) {
      const res = await call(laneUrl, session);
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
  });

  it('each user of an app has their own budget; the app has one for all; 429 carries Retry-After and the ErrorResponse', async () => {
    const clientId = 'app_quota_budget';
    const alice = await appToken(clientId, '9211');
    const bob = await appToken(clientId, '9212');
    const carol = await appToken(clientId, '9213');
    for (let i = 0; i < 3; i++) expect((await call(i % 2 ? h.url : laneUrl, alice)).status).toBe(200);

    for (const url of [laneUrl, h.url]) {
      const over = await call(url, alice);
      expect(over.status).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(590);
      expect(parseRateLimit(over.headers.ratelimit)).toMatchObject({ user: { r: 0 }, app: { r: 2 } });
      const body = JSON.parse(over.body.toString('utf8')) as Record<string, unknown>;
      expect(body).toMatchObject({ status: 429, code: 'RATE_LIMITED', path: '/api/users/me' });
      expect(body.message).toMatch(/quota for this user/);
    }

    // Bob's budget is his own; refused requests did not spend the app's.
    expect(parseRateLimit((await call(laneUrl, bob)).headers.ratelimit)).toMatchObject({ user: { r: 2 }, app: { r: 1 } });
    expect(parseRateLimit((await call(h.url, bob)).headers.ratelimit)).toMatchObject({ user: { r: 1 }, app: { r: 0 } });

    // The app's budget is spent for every user, Carol's first request included.
    const spent = await call(laneUrl, carol);
    expect(spent.status).toBe(429);
    expect(parseRateLimit(spent.headers.ratelimit)).toMatchObject({ user: { r: 3 }, app: { r: 0 } });
    expect(Number(spent.headers['retry-after'])).toBeGreaterThan(3500);
    expect(JSON.parse(spent.body.toString('utf8'))).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/app's quota is spent/) });

    // Another app is not affected.
    expect((await call(laneUrl, await appToken('app_quota_other', '9211'))).status).toBe(200);
  });

  it('counts the usage of the day per app: requests, 429s and operations', async () => {
    const clientId = 'app_quota_usage';
    const token = await appToken(clientId, '9221');
    await call(laneUrl, token);
    await call(h.url, token, 'POST', '/api/tracks/1/like');
    await call(laneUrl, token);
    await call(laneUrl, token); // over the user's quota of 3
    const usage = await h.redis.hgetall(h.key(APP_USAGE_KEYS.day(clientId, usageDay())));
    expect(usage).toEqual({ requests: '4', limited: '1', 'op:USR-1': '3', 'op:ENG-1': '1' });
    const ttl = await h.redis.ttl(h.key(APP_USAGE_KEYS.day(clientId, usageDay())));
    expect(ttl).toBeGreaterThan(89 * 86_400);
  });
});

describe('readQuota and the RateLimit header fields', () => {
  const limits = { perUser: 10, perUserWindowSeconds: 60, perApp: 100, perAppWindowSeconds: 3600 };

  it('turns the script answer into what is left and when each window starts over', () => {
    const state = readQuota([3, 42_100, 50, 1_800_000, 0], limits);
    expect(state).toEqual({ user: { remaining: 7, resetSeconds: 43 }, app: { remaining: 50, resetSeconds: 1800 }, refused: null });
    expect(rateLimitHeader(state)).toBe('"user";r=7;t=43, "app";r=50;t=1800');
    expect(rateLimitPolicyHeader(limits)).toBe('"user";q=10;w=60, "app";q=100;w=3600');
  });

  it('names the spent quota; with both spent, Retry-After waits for the later window', () => {
    expect(readQuota([10, 5_000, 20, 900_000, 1], limits).refused).toEqual({ policy: 'user', retryAfterSeconds: 5 });
    expect(readQuota([2, 5_000, 100, 900_000, 1], limits).refused).toEqual({ policy: 'app', retryAfterSeconds: 900 });
    expect(readQuota([10, 5_000, 100, 900_000, 1], limits).refused).toEqual({ policy: 'user', retryAfterSeconds: 900 });
  });
});

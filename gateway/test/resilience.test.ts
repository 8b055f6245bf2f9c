import net from 'node:net';
import { freePort } from '@msp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, json, startHarness, type Echo, type Harness } from './helpers.js';

describe('upstream failures become gateway ErrorResponses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { UPSTREAM_TIMEOUT_MS: '500' }, services: { messaging: 'stopped', social: { delayMs: 3000 } } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a stopped service → 503 SERVICE_UNAVAILABLE with Retry-After, well within 5 s', async () => {
    const token = await h.token();
    const started = Date.now();
    const response = await fetch(`${h.url}/api/conversations`, { headers: { authorization: `Bearer ${token}` } });
    const elapsed = Date.now() - started;
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(elapsed).toBeLessThan(5000);
  });

  it('a stopped service on a POST with a body → 503 too', async () => {
    const token = await h.token();
    const response = await fetch(`${h.url}/api/conversations/5/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'hi' }),
    });
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
  });

  it('a service slower than UPSTREAM_TIMEOUT_MS → 504 UPSTREAM_TIMEOUT', async () => {
    const started = Date.now();
    const response = await fetch(`${h.url}/api/tracks/3/comments`);
    await expectError(response, 504, 'UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('other services keep answering meanwhile', async () => {
    expect((await json<Echo>(await fetch(`${h.url}/api/genres`))).service).toBe('catalog');
  });
});

describe('Redis down: bearer fails closed, public routes and rate limits fail open', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('bearer route → 503 SERVICE_UNAVAILABLE with Retry-After (revocation cannot be checked)', async () => {
    const token = await h.token();
    const response = await fetch(`${h.url}/api/users/me`, { headers: { authorization: `Bearer ${token}` } });
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(response.headers.get('retry-after')).toBe('5');
  });

  it('optional route with a valid token → proxied anonymously', async () => {
    const token = await h.token({ sub: '5' });
    const response = await fetch(`${h.url}/api/tracks/1`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect((await json<Echo>(response)).headers['x-user-id']).toBeUndefined();
  });

  it('public route → proxied (rate limit skipped)', async () => {
    expect((await fetch(`${h.url}/api/genres`)).status).toBe(200);
  });

  it('/ready → 503 with the redis check down; /health still up', async () => {
    const ready = await fetch(`${h.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await json(ready)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', checks: { redis: 'down' } });
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
  });
});

describe('JWKS unreachable: tokens cannot be verified', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { JWKS_URL: `http://127.0.0.1:${await freePort()}/.well-known/jwks.json` } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('bearer route → 503 SERVICE_UNAVAILABLE, not a misleading 401', async () => {
    const token = await h.token();
    await expectError(await fetch(`${h.url}/api/users/me`, { headers: { authorization: `Bearer ${token}` } }), 503, 'SERVICE_UNAVAILABLE');
  });

  it('routes without auth keep working', async () => {
    expect((await fetch(`${h.url}/api/genres`)).status).toBe(200);
  });
});

describe('a service answering an unusable status', () => {
  let h: Harness;
  let odd: net.Server;
  beforeAll(async () => {
    // Speaks HTTP/1.1 but answers a status outside 100–599, with headers of its own.
    odd = net.createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 999 Odd\r\ncontent-length: 2\r\nx-odd: yes\r\n\r\nhi'));
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const address = odd.address() as net.AddressInfo;
    h = await startHarness({ env: { CATALOG_URL: `http://127.0.0.1:${address.port}` } });
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((resolve) => odd?.close(resolve));
  });

  it('→ 503 SERVICE_UNAVAILABLE ErrorResponse, none of its headers passed on', async () => {
    const response = await fetch(`${h.url}/api/genres`);
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(response.headers.get('x-odd')).toBeNull();
  });
});

describe('a service failing in the middle of its answer (src/upstream.ts)', () => {
  let h: Harness;
  let partial: net.Server;
  const sockets = new Set<net.Socket>();
  const big = 'x'.repeat(200 * 1024);
  beforeAll(async () => {
    // /api/genres: promises 100 bytes, sends 10 and stalls; /api/oembed: promises 100, sends 10 and
    // hangs up; /api/embed/player: 200 KiB (streamed, above the buffered size); anything else: 2 bytes.
    partial = net.createServer((socket) => {
      sockets.add(socket);
      socket.once('data', (data) => {
        const path = data.toString('latin1').split(' ')[1];
        const head = (length: number) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nx-partial: yes\r\n\r\n`;
        if (path === '/api/genres') socket.write(`${head(100)}0123456789`);
        else if (path === '/api/oembed') socket.end(`${head(100)}0123456789`);
        else if (path === '/api/embed/player') socket.end(`${head(big.length)}${big}`);
        else socket.end(`${head(2)}{}`);
      });
    });
    await new Promise<void>((resolve) => partial.listen(0, '127.0.0.1', resolve));
    const address = partial.address() as net.AddressInfo;
    h = await startHarness({ env: { CATALOG_URL: `http://127.0.0.1:${address.port}`, UPSTREAM_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await h?.close();
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => partial?.close(resolve));
  });

  it('a small answer that stalls → 504 UPSTREAM_TIMEOUT ErrorResponse, none of its headers passed on', async () => {
    const response = await fetch(`${h.url}/api/genres`);
    await expectError(response, 504, 'UPSTREAM_TIMEOUT');
    expect(response.headers.get('x-partial')).toBeNull();
  });

  it('a small answer cut off → 503 SERVICE_UNAVAILABLE ErrorResponse, not a truncated 200', async () => {
    const response = await fetch(`${h.url}/api/oembed`);
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(response.headers.get('x-partial')).toBeNull();
  });

  it('an answer above the buffered size streams through whole, with its length', async () => {
    const response = await fetch(`${h.url}/api/embed/player`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(big.length));
    expect(response.headers.get('x-partial')).toBe('yes');
    expect(await response.text()).toBe(big);
  });
});

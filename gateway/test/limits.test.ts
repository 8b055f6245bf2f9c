import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, json, rawRequest, startHarness, type Echo, type Harness } from './helpers.js';

const MIB = 1024 * 1024;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    // The test client stands in for the ingress: a trusted proxy whose X-Forwarded-For counts.
    env: { RATE_LIMIT_CLIENT_PER_MINUTE: '5', RATE_LIMIT_USER_PER_MINUTE: '3', AUDIO_MAX_BYTES: String(4 * MIB), TRUST_PROXY: 'loopback' },
  });
});
afterAll(async () => {
  await h?.close();
});

// Every test speaks as its own client address (this gateway trusts X-Forwarded-For from loopback)
// so that the per-client window of one test does not eat into another's.
let clientCounter = 0;
const client = () => ({ 'x-forwarded-for': `203.0.113.${++clientCounter}` });

describe('rate limits: per client address', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a client exceeds its per-minute budget', async () => {
    const headers = client();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await fetch(`${h.url}/api/genres`, { headers })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const limited = await fetch(`${h.url}/api/genres`, { headers });
    await expectError(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // another address is not affected
    expect((await fetch(`${h.url}/api/genres`, { headers: client() })).status).toBe(200);
  });

  it('counts unknown paths too (no free probing)', async () => {
    const headers = client();
    for (let i = 0; i < 5; i += 1) expect((await fetch(`${h.url}/api/nope`, { headers })).status).toBe(404);
    await expectError(await fetch(`${h.url}/api/nope`, { headers }), 429, 'RATE_LIMITED');
  });

  it('forwards the resolved client address to the service', async () => {
    const headers = client();
    const echo = await json<Echo>(await fetch(`${h.url}/api/genres`, { headers }));
    expect(echo.headers['x-forwarded-for']).toBe(headers['x-forwarded-for']);
    expect(echo.headers['x-client-ip']).toBe(headers['x-forwarded-for']);
  });
});

describe('rate limits: X-Forwarded-For from an untrusted peer', () => {
  it('counts the socket address, so rotating the header does not escape the limit', async () => {
    const untrusted = await startHarness({ env: { RATE_LIMIT_CLIENT_PER_MINUTE: '5', REDIS_KEY_PREFIX: `xff-${Date.now()}:` } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) {
        statuses.push((await fetch(`${untrusted.url}/api/genres`, { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    } finally {
      await untrusted.close();
    }
  });
});

describe('rate limits: per user', () => {
  it('limits one user across client addresses', async () => {
    const token = await h.token({ sub: '9001' });
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${h.url}/api/users/me`, { headers: { ...auth, ...client() } })).status).toBe(200);
    const limited = await fetch(`${h.url}/api/users/me`, { headers: { ...auth, ...client() } });
    await expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const other = await h.token({ sub: '9002' });
    expect((await fetch(`${h.url}/api/users/me`, { headers: { authorization: `Bearer ${other}`, ...client() } })).status).toBe(200);
  });
});

describe('rate limits: the gate script under load (auto-pipelined, src/redis.ts)', () => {
  it('answers each of many requests sent at once on its own count: exactly the user budget passes', async () => {
    const token = await h.token({ sub: '9003' });
    // Eight requests in flight at once: their gate scripts share Redis writes, each keeps its answer.
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${h.url}/api/users/me`, { headers: { authorization: `Bearer ${token}`, ...client() } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it('keeps gating after Redis lost its scripts (a restart without persistence: SCRIPT FLUSH)', async () => {
    const token = await h.token({ sub: '9004' });
    const headers = { authorization: `Bearer ${token}`, ...client() };
    expect((await fetch(`${h.url}/api/users/me`, { headers })).status).toBe(200);
    await h.redis.script('FLUSH');
    const statuses = await Promise.all(Array.from({ length: 2 }, () => fetch(`${h.url}/api/users/me`, { headers }).then((r) => r.status)));
    expect(statuses).toEqual([200, 200]);
    // The user's count went on across the flush: the fourth request is over the budget of 3.
    await expectError(await fetch(`${h.url}/api/users/me`, { headers }), 429, 'RATE_LIMITED');
  });
});

describe('body limits (docs/api.md Gateway): 413 PAYLOAD_TOO_LARGE', () => {
  it('refuses a JSON body over 1 MB by its Content-Length, before reading it', async () => {
    const body = Buffer.alloc(MIB + 10, 0x61);
    const response = await rawRequest(h.url, {
      method: 'POST',
      path: '/api/auth/login/local',
      headers: { ...client(), 'content-type': 'application/json', 'content-length': body.length },
      chunks: [body],
    });
    expect(response.status).toBe(413);
    const error = JSON.parse(response.body.toString());
    expect(error).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', path: '/api/auth/login/local' });
    expect(error.requestId).toBe(response.headers['x-request-id']);
  });

  it('refuses a chunked JSON body once it streams past 1 MB', async () => {
    const chunks = Array.from({ length: 12 }, () => Buffer.alloc(128 * 1024, 0x62));
    const response = await rawRequest(h.url, {
      method: 'POST',
      path: '/api/auth/login/local',
      headers: { ...client(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body.toString()).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('lets a JSON body just under 1 MB through intact', async () => {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(MIB - 100) }));
    const response = await fetch(`${h.url}/api/auth/login/local`, { method: 'POST', headers: { ...client(), 'content-type': 'application/json' }, body });
    expect(response.status).toBe(200);
    const echo = await json<Echo>(response);
    expect(echo.bodySha256).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('allows multipart bodies on image routes 11 MB but not more', async () => {
    const token = await h.token({ sub: '7100' });
    const ok = Buffer.alloc(2 * MIB, 1);
    const multipart = 'multipart/form-data; boundary=x-test-boundary';
    const accepted = await fetch(`${h.url}/api/users/me/images`, {
      method: 'PATCH',
      headers: { ...client(), authorization: `Bearer ${token}`, 'content-type': multipart },
      body: ok,
    });
    expect(accepted.status).toBe(200);
    const tooBig = Buffer.alloc(11 * MIB + 1, 1);
    const refused = await rawRequest(h.url, {
      method: 'PATCH',
      path: '/api/users/me/images',
      headers: { ...client(), authorization: `Bearer ${token}`, 'content-type': multipart, 'content-length': tooBig.length },
      chunks: [tooBig],
    });
    expect(refused.status).toBe(413);
  });

  it('holds JSON on image routes to the JSON limit: 1.1 MB → 413 ErrorResponse, 20 times out of 20', async () => {
    const body = Buffer.from(JSON.stringify({ title: 'x'.repeat(1.1 * MIB) }));
    for (let i = 0; i < 20; i += 1) {
      const token = await h.token({ sub: String(7200 + i) }); // the per-user limit here is 3/min
      const chunked = i % 2 === 1;
      const refused = await rawRequest(h.url, {
        method: 'POST',
        path: '/api/playlists',
        headers: {
          ...client(),
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': body.length }),
        },
        chunks: chunked ? [body.subarray(0, 600_000), body.subarray(600_000)] : [body],
      });
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    }
  });
});

describe('bodies stream through untouched', () => {
  it('streams a multipart upload intact (sha256 on the service side)', async () => {
    const boundary = '----gatewaytest' + randomBytes(8).toString('hex');
    const audio = randomBytes(3 * MIB + 12345);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nMy track\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audioFile"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`),
      audio,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const token = await h.token({ sub: '7200' });
    const response = await rawRequest(h.url, {
      method: 'POST',
      path: '/api/tracks/upload',
      headers: { ...client(), authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
      chunks: Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536)),
    });
    expect(response.status).toBe(200);
    const echo = JSON.parse(response.body.toString()) as Echo;
    expect(echo.service).toBe('catalog');
    expect(echo.bodyLength).toBe(body.length);
    expect(echo.bodySha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(echo.headers['content-type']).toBe(`multipart/form-data; boundary=${boundary}`);
  });

  it('refuses an upload over audio limit + 11 MB', async () => {
    const token = await h.token({ sub: '7201' });
    const response = await rawRequest(h.url, {
      method: 'POST',
      path: '/api/tracks/upload',
      headers: { ...client(), authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=x', 'content-length': 15 * MIB + 1 },
    });
    expect(response.status).toBe(413);
  });

  it('passes the SUB-5 webhook body byte for byte with its signature header', async () => {
    // Odd whitespace, key order and a non-UTF-8 byte: any re-serialisation would change the digest.
    const raw = Buffer.concat([
      Buffer.from('{ "id":"evt_1",  "type":"invoice.paid",\n"data":{"b":1,"a":2}, "x":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const response = await fetch(`${h.url}/api/webhook/stripe`, {
      method: 'POST',
      headers: { ...client(), 'content-type': 'application/json; charset=utf-8', 'stripe-signature': 't=1,v1=abc' },
      body: raw,
    });
    expect(response.status).toBe(200);
    const echo = await json<Echo>(response);
    expect(echo.service).toBe('billing');
    expect(echo.bodySha256).toBe(createHash('sha256').update(raw).digest('hex'));
    expect(echo.headers['stripe-signature']).toBe('t=1,v1=abc');
    expect(echo.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

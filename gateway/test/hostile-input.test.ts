import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSERTION_HEADER, deriveAssertionKey, DEV_GATEWAY_SIGNING_KEY, verifyAssertion } from '@msp/http';
import { json, startHarness, type Echo, type Harness } from './helpers.js';

/** Hostile input and abuse at the edge: every rejection is an ErrorResponse, and what is forwarded is signed. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function raw(request: string): Promise<{ status: number; body: string }> {
  const url = new URL(h.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('close', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body });
    });
    socket.on('error', () => undefined);
    socket.write(request);
  });
}

function expectErrorResponse(body: string, status: number): void {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(parsed).toMatchObject({ status });
  expect(Object.keys(parsed).sort()).toEqual(expect.arrayContaining(['code', 'error', 'message', 'path', 'requestId', 'status', 'timestamp']));
}

describe('Node-level and framework rejections in the ErrorResponse shape', () => {
  it('oversized headers → 431 ErrorResponse', async () => {
    const res = await raw(`GET /api/genres HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expectErrorResponse(res.body, 431);
  });

  it('Content-Length together with Transfer-Encoding → 400 ErrorResponse', async () => {
    const res = await raw('POST /api/auth/login/local HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
    expect(res.status).toBe(400);
    expectErrorResponse(res.body, 400);
  });

  it('a bad escape in a path segment (/api/tracks/%FF) → 400 VALIDATION_FAILED with errors', async () => {
    const res = await fetch(`${h.url}/api/tracks/%FF`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; errors: unknown[] };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.errors.length).toBeGreaterThan(0);
  });

  it('?page=%FF, a NUL in the path and multipart without a boundary → 400 before anything is forwarded', async () => {
    for (const [path, init] of [
      ['/api/tracks/1?page=%FF', {}],
      ['/api/users/username/a%00b', {}],
      ['/api/tracks/upload/v2', { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'x' }],
    ] as Array<[string, RequestInit]>) {
      const res = await fetch(`${h.url}${path}`, init);
      expect(res.status, path).toBe(400);
      expectErrorResponse(await res.text(), 400);
    }
  });
});

describe('gateway assertion', () => {
  it('signs the forwarded caller and client address for the owner service only', async () => {
    const token = await h.token({ sub: '5151' });
    const echo = await json<Echo>(
      await fetch(`${h.url}/api/users/me`, { headers: { authorization: `Bearer ${token}`, 'x-gateway-assertion': 'v1.1.forged', 'x-client-ip': '6.6.6.6' } }),
    );
    const headers = echo.headers as Record<string, string>;
    expect(headers['x-client-ip']).not.toBe('6.6.6.6');
    const input = { method: 'GET', url: '/api/users/me', requestId: headers['x-request-id']!, headers };
    expect(verifyAssertion(deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, 'identity'), headers[ASSERTION_HEADER], input)).toBe(true);
    expect(verifyAssertion(deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, 'catalog'), headers[ASSERTION_HEADER], input)).toBe(false);
    expect(verifyAssertion(deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, 'identity'), headers[ASSERTION_HEADER], { ...input, url: '/api/users/1' })).toBe(false);
  });

  it('keeps /metrics off the public port without the token', async () => {
    const res = await fetch(`${h.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(res.status).toBe(404);
  });
});

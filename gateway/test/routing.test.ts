import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, json, rawRequest, startHarness, type Echo, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('routing: unknown paths and methods', () => {
  it('answers 404 ROUTE_NOT_FOUND with a full ErrorResponse for an unknown /api path', async () => {
    const response = await fetch(`${h.url}/api/nope/123?x=1`);
    const body = await expectError(response, 404, 'ROUTE_NOT_FOUND');
    expect(body.path).toBe('/api/nope/123');
    expect(body.error).toBe('Not Found');
  });

  it('answers 404 for paths outside /api too', async () => {
    await expectError(await fetch(`${h.url}/elsewhere`), 404, 'ROUTE_NOT_FOUND');
  });

  it('answers 405 METHOD_NOT_ALLOWED with an Allow header when the path exists under other methods', async () => {
    const response = await fetch(`${h.url}/api/genres`, { method: 'DELETE' });
    await expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('lists every method of a multi-method path in Allow', async () => {
    const response = await fetch(`${h.url}/api/tracks/7`, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } });
    await expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
  });

  it('answers 405 for a gateway-owned path under a wrong method', async () => {
    await expectError(await fetch(`${h.url}/api/health`, { method: 'POST' }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('refuses dot segments that would reach another path upstream', async () => {
    for (const path of ['/api/tracks/%2e%2e/admin/analytics', '/api/tracks/../admin/analytics', '/api/users/42/..%2f..%2fadmin/analytics']) {
      const response = await rawRequest(h.url, { path });
      expect(response.status, path).toBe(404);
      expect(JSON.parse(response.body.toString()).code).toBe('ROUTE_NOT_FOUND');
    }
  });
});

describe('routing: owner service and unchanged path', () => {
  const cases: Array<[string, string, string]> = [
    ['GET', '/api/genres', 'catalog'],
    ['GET', '/api/users/42', 'identity'],
    ['GET', '/api/users/username/alice', 'identity'],
    ['GET', '/api/users/alice/liked-playlists', 'social'],
    ['GET', '/api/users/42/tracks?page=1&size=5', 'catalog'],
    ['GET', '/api/users/username/alice/tracks', 'catalog'],
    ['GET', '/api/tracks/resolve/my-slug', 'catalog'],
    ['GET', '/api/tracks/9/comments', 'social'],
    ['GET', '/api/explore/trending?limit=3', 'catalog'],
    ['POST', '/api/auth/login/local', 'identity'],
  ];
  it.each(cases)('%s %s → %s', async (method, path, service) => {
    const response = await fetch(
      `${h.url}${path}`,
      method === 'POST' ? { method, body: '{"email":"a@b.c"}', headers: { 'content-type': 'application/json' } } : { method },
    );
    expect(response.status).toBe(200);
    const echo = await json<Echo>(response);
    expect(echo.service).toBe(service);
    expect(echo.url).toBe(path);
    expect(echo.method).toBe(method);
  });

  it('prefers static segments over parameters (/users/me/playlists is catalog PLS-1, not a username)', async () => {
    const token = await h.token();
    const response = await fetch(`${h.url}/api/users/me/playlists`, { headers: { authorization: `Bearer ${token}` } });
    const echo = await json<Echo>(response);
    expect(echo.service).toBe('catalog');
    const suggested = await fetch(`${h.url}/api/users/suggested`, { headers: { authorization: `Bearer ${token}` } });
    expect((await json<Echo>(suggested)).service).toBe('social');
  });
});

describe('proxy (src/upstream.ts): what crosses the hop', () => {
  it("drops the client's hop-by-hop headers and those its Connection header names, and sets the service's Host", async () => {
    const response = await rawRequest(h.url, {
      path: '/api/genres',
      headers: { connection: 'keep-alive, X-Drop-Me', 'x-drop-me': 'secret', 'keep-alive': 'timeout=5', te: 'trailers', 'x-kept': 'yes' },
    });
    expect(response.status).toBe(200);
    const echo = JSON.parse(response.body.toString()) as Echo;
    expect(echo.headers['x-kept']).toBe('yes');
    for (const name of ['x-drop-me', 'keep-alive', 'te']) expect(echo.headers[name], name).toBeUndefined();
    expect(echo.headers.host).toBe(new URL(h.services.get('catalog')!.url).host);
  });

  it('sends a body read whole as the same bytes with a Content-Length, and answers HEAD without a body', async () => {
    const body = JSON.stringify({ email: 'a@b.c', note: 'é'.repeat(10) });
    const response = await rawRequest(h.url, {
      method: 'POST',
      path: '/api/auth/login/local',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: [Buffer.from(body)],
    });
    const echo = JSON.parse(response.body.toString()) as Echo;
    expect(echo.body).toBe(body);
    expect(echo.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(echo.headers['transfer-encoding']).toBeUndefined();

    const head = await rawRequest(h.url, { method: 'HEAD', path: '/api/genres' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });
});

describe('request id: accepted, generated, echoed', () => {
  it('echoes a client X-Request-Id on the response and forwards it', async () => {
    const response = await fetch(`${h.url}/api/genres`, { headers: { 'x-request-id': 'client-req-123' } });
    expect(response.headers.get('x-request-id')).toBe('client-req-123');
    expect((await json<Echo>(response)).headers['x-request-id']).toBe('client-req-123');
  });

  it('generates one when absent (or insane) and uses it in errors', async () => {
    const response = await fetch(`${h.url}/api/missing`, { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const body = await expectError(response, 404, 'ROUTE_NOT_FOUND');
    expect(body.requestId).toBe(id);
  });
});

describe('trace context: one trace across the hop', () => {
  const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

  it("forwards the gateway's own span context, once, continuing the client's trace", async () => {
    const client = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const echo = await json<Echo>(await fetch(`${h.url}/api/genres`, { headers: { traceparent: client, tracestate: 'vendor=client' } }));
    const forwarded = String(echo.headers.traceparent);
    // Exactly one header (two would arrive joined by a comma), the client's trace id, the gateway's span.
    const [, traceId, spanId] = TRACEPARENT.exec(forwarded) ?? [];
    expect(traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(spanId).not.toBe('00f067aa0ba902b7');
  });

  it('starts a trace for a client that sent none', async () => {
    const echo = await json<Echo>(await fetch(`${h.url}/api/genres`));
    expect(String(echo.headers.traceparent)).toMatch(TRACEPARENT);
  });
});

describe('upstream error answers pass through unchanged', () => {
  it('relays a service 4xx ErrorResponse as is', async () => {
    const response = await fetch(`${h.url}/api/genres?fakeStatus=404`, { headers: { 'x-request-id': 'pass-through-1' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-fake')).toBe('catalog');
    const body = await json(response);
    expect(body).toMatchObject({ code: 'TRACK_NOT_FOUND', message: 'answered by catalog', requestId: 'pass-through-1' });
  });

  it('relays a service 503 on a GET once, without retrying it', async () => {
    const started = Date.now();
    const response = await fetch(`${h.url}/api/genres?fakeStatus=503`);
    expect(response.status).toBe(503);
    expect((await json(response)).message).toBe('answered by catalog');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('gateway shell: security headers and CORS', () => {
  it('sets helmet headers and a CSP', async () => {
    const response = await fetch(`${h.url}/api/genres`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('answers a preflight from the configured web origin with credentials', async () => {
    const response = await fetch(`${h.url}/api/tracks/1`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('exposes X-Request-Id and Retry-After to the allowed origin, not to others', async () => {
    const allowed = await fetch(`${h.url}/api/genres`, { headers: { origin: 'http://localhost:3000' } });
    expect(allowed.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('retry-after');
    const other = await fetch(`${h.url}/api/genres`, { headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

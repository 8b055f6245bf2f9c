import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { requiredScope, ROUTE_SCOPES, ROUTES, scopeAllows } from '@msp/contracts';
import { buildGateway } from '../src/app.js';
import { mergeOpenApi } from '../src/openapi.js';
import { rawRequest, startHarness, type Harness } from './helpers.js';

/**
 * App tokens (docs/developer-platform.md) at the gateway: the route's scope (route-scopes.ts), the
 * app's suspension key and the grant's revoked key, checked identically by the proxy route and the
 * fast lane: every request goes to a gateway without the lane and to one with it, and both answers
 * must agree.
 */
let h: Harness;
let lane: FastifyInstance;
let laneUrl: string;

beforeAll(async () => {
  h = await startHarness({ env: { FAST_LANE: 'false' } });
  lane = await buildGateway({ ...h.config, FAST_LANE: true }, { logger: false });
  await lane.listen({ host: '127.0.0.1', port: 0 });
  const address = lane.server.address();
  laneUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await lane?.close();
  await h?.close();
});

const appToken = (scope: string, overrides: Record<string, string> = {}) =>
  h.token({
    sub: '9100',
    azp: overrides.azp ?? 'app_scopes_test',
    scope,
    sid: overrides.sid ?? randomUUID(),
    ...(overrides.role ? { role: overrides.role as 'ADMIN' } : {}),
  });

/** Status and error code of the same request on both gateways (they must agree). */
async function both(method: string, path: string, token: string): Promise<{ status: number; code: string | null; echo: Record<string, unknown> | null }> {
  const headers: http.OutgoingHttpHeaders = { host: 'gateway.test', authorization: `Bearer ${token}` };
  const body = method === 'GET' ? undefined : [Buffer.from('{}')];
  if (body) headers['content-type'] = 'application/json';
  const answers = await Promise.all(
    [h.url, laneUrl].map(async (url) => {
      const res = await rawRequest(url, { method, path, headers, chunks: body });
      const parsed = JSON.parse(res.body.toString('utf8') || 'null') as Record<string, unknown> | null;
      return { status: res.status, code: typeof parsed?.code === 'string' ? parsed.code : null, echo: parsed?.service ? parsed : null };
    }),
  );
  expect({ status: answers[1]!.status, code: answers[1]!.code }).toEqual({ status: answers[0]!.status, code: answers[0]!.code });
  return answers[0]!;
}

describe('USR-1 MSG-1 ENG-1 TRK-8 DSC-3 SEC-1 MOD-4 APP-2 NOT-7 scopes of app tokens', () => {
  it('reads need only an app token; other operations need their scope (403 INSUFFICIENT_SCOPE)', async () => {
    const read = await appToken('read');
    expect((await both('GET', '/api/users/me', read)).status).toBe(200);
    expect((await both('GET', '/api/search?q=x', read)).status).toBe(200);
    expect(await both('GET', '/api/conversations', read)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(await both('POST', '/api/tracks/1/like', read)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(await both('PATCH', '/api/tracks/1', read)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });

    const full = await appToken('read write engage messages webhooks');
    expect((await both('GET', '/api/conversations', full)).status).toBe(200);
    expect((await both('POST', '/api/tracks/1/like', full)).status).toBe(200);
    expect((await both('PATCH', '/api/tracks/1', full)).status).toBe(200);
  });

  it('account security, the app registry, device tokens and admin routes are closed to every app token', async () => {
    const full = await appToken('read write engage messages webhooks');
    for (const [method, path] of [
      ['PATCH', '/api/users/me/email'],
      ['GET', '/api/apps'],
      ['POST', '/api/users/me/device-tokens'],
      ['GET', '/api/subscription/status'],
    ] as const) {
      expect(await both(method, path, full), path).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    }
    const adminApp = await appToken('read write engage messages', { role: 'ADMIN' });
    expect(await both('GET', '/api/admin/reports', adminApp)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });

  it('user session tokens are unaffected; the app token forwards the same identity headers', async () => {
    const user = await h.token({ sub: '9101' });
    expect((await both('GET', '/api/conversations', user)).status).toBe(200);
    expect((await both('PATCH', '/api/users/me/email', user)).status).toBe(200);
    const forwarded = await both('GET', '/api/users/me', await appToken('read'));
    expect((forwarded.echo?.headers as Record<string, string>)['x-user-id']).toBe('9100');
  });

  it('a suspended app or a revoked grant is refused at once (401)', async () => {
    const sid = randomUUID();
    const token = await appToken('read', { azp: 'app_suspended_test', sid });
    expect((await both('GET', '/api/users/me', token)).status).toBe(200);
    await h.redis.set(h.key('auth:app-status:app_suspended_test'), 'suspended', 'EX', 60);
    expect(await both('GET', '/api/users/me', token)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await h.redis.del(h.key('auth:app-status:app_suspended_test'));
    expect((await both('GET', '/api/users/me', token)).status).toBe(200);
    await h.redis.set(h.key(`auth:revoked-session:${sid}`), '1', 'EX', 60);
    expect(await both('GET', '/api/users/me', token)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('route-scopes table', () => {
  it('names only operations of ROUTES, and never opens an admin route', () => {
    const ids = new Set(ROUTES.map((route) => route.id));
    for (const id of Object.keys(ROUTE_SCOPES)) expect(ids.has(id), id).toBe(true);
    for (const route of ROUTES.filter((r) => r.auth === 'admin' || r.path.startsWith('/admin/'))) expect(requiredScope(route.id), route.id).toBe('closed');
    expect(scopeAllows('USR-1', new Set())).toBe(true);
    expect(scopeAllows('MSG-1', new Set(['read']))).toBe(false);
    expect(scopeAllows('APP-1', new Set(['read', 'write', 'engage', 'messages', 'webhooks']))).toBe(false);
  });

  it('the merged OpenAPI document has the oauth2 scheme and each operation its scope', () => {
    const document = mergeOpenApi(
      [
        {
          service: 'messaging',
          document: { paths: { '/api/conversations': { get: { operationId: 'MSG-1', security: [{ bearerAuth: [] }], responses: {} } } } },
        },
        { service: 'identity', document: { paths: { '/api/apps': { get: { operationId: 'APP-2', security: [{ bearerAuth: [] }], responses: {} } } } } },
      ],
      [],
      'https://api.example.com',
    );
    expect(document.components.securitySchemes).toMatchObject({
      oauth2: {
        type: 'oauth2',
        flows: { authorizationCode: { tokenUrl: 'https://api.example.com/api/oauth/token', scopes: { messages: expect.any(String) } } },
      },
    });
    expect(document.paths['/api/conversations']).toMatchObject({
      get: { 'x-app-scope': 'messages', security: [{ bearerAuth: [] }, { oauth2: ['messages'] }] },
    });
    expect(document.paths['/api/apps']).toMatchObject({ get: { 'x-app-scope': 'closed', security: [{ bearerAuth: [] }] } });
  });
});

import { createHmac, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, json, startHarness, type Echo, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const claims = () => ({ sub: '42', username: 'alice', role: 'ADMIN', tier: 'PRO', sid: 'sid-forged', jti: 'j', iat: now(), exp: now() + 600 });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const IDENTITY = ['x-user-id', 'x-user-role', 'x-user-tier', 'x-session-id', 'x-username'];

describe('auth: bearer routes refuse missing and bad tokens with 401 UNAUTHORIZED', () => {
  const route = '/api/users/me';

  it('no Authorization header', async () => {
    await expectError(await fetch(`${h.url}${route}`), 401, 'UNAUTHORIZED');
  });

  it('an expired token', async () => {
    const token = await h.token({}, { expiresIn: now() - 60 });
    const body = await expectError(await fetch(`${h.url}${route}`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
    expect(body.message).toMatch(/expired/);
  });

  it('a token signed by another key with the known kid', async () => {
    const token = await h.token({}, { signWithForeignKey: true });
    await expectError(await fetch(`${h.url}${route}`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
  });

  it('a token naming an unknown kid', async () => {
    const token = await h.jwks.sign({ sub: '42', username: 'a', role: 'LISTENER', tier: 'FREE', sid: 's' }, { kid: 'nobody' });
    await expectError(await fetch(`${h.url}${route}`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
  });

  it('an unsigned alg:none token', async () => {
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}.`;
    await expectError(await fetch(`${h.url}${route}`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
  });

  it('an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const jwk = ((await (await fetch(h.jwks.url)).json()) as { keys: Array<Record<string, string>> }).keys[0]!;
    const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    const unsigned = `${b64url({ alg: 'HS256', typ: 'JWT', kid: h.jwks.kid })}.${b64url(claims())}`;
    const token = `${unsigned}.${createHmac('sha256', pem).update(unsigned).digest('base64url')}`;
    await expectError(await fetch(`${h.url}${route}`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
  });

  it.each([['not-a-jwt'], ['a.b.c'], ['']])('a malformed token %j', async (token) => {
    await expectError(await fetch(`${h.url}${route}`, { headers: { authorization: `Bearer ${token}` } }), 401, 'UNAUTHORIZED');
  });

  it('a non-Bearer scheme', async () => {
    await expectError(await fetch(`${h.url}${route}`, { headers: { authorization: 'Basic YWxpY2U6cHc=' } }), 401, 'UNAUTHORIZED');
  });

  it('a token whose claims are not an access token (no role/tier)', async () => {
    const token = await h.jwks.sign({ sub: '42', sid: 's1' });
    await expectError(await fetch(`${h.url}${route}`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
  });
});

describe('auth: identity headers come from the verified token only', () => {
  it('forwards the claims of a valid token as X-User-* headers', async () => {
    const token = await h.token({ sub: '77', username: 'bob', role: 'ARTIST', tier: 'PRO', sid: 'sess-77' });
    const response = await fetch(`${h.url}/api/users/me`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    const echo = await json<Echo>(response);
    expect(echo.headers).toMatchObject({
      'x-user-id': '77',
      'x-user-role': 'ARTIST',
      'x-user-tier': 'PRO',
      'x-session-id': 'sess-77',
      'x-username': 'bob',
      authorization: `Bearer ${token}`,
    });
  });

  it('replaces a client-sent X-User-Id by the token subject', async () => {
    const token = await h.token({ sub: '77' });
    const response = await fetch(`${h.url}/api/users/me`, { headers: { ...bearer(token), 'x-user-id': '1', 'x-user-role': 'ADMIN' } });
    const echo = await json<Echo>(response);
    expect(echo.headers['x-user-id']).toBe('77');
    expect(echo.headers['x-user-role']).toBe('LISTENER');
  });

  it('strips client-sent identity headers on a public route', async () => {
    const response = await fetch(`${h.url}/api/genres`, {
      headers: { 'x-user-id': '1', 'x-user-role': 'ADMIN', 'x-user-tier': 'PRO', 'x-session-id': 's', 'x-username': 'root' },
    });
    const echo = await json<Echo>(response);
    for (const name of IDENTITY) expect(echo.headers[name], name).toBeUndefined();
  });

  it('ignores a token on an auth:none route (no identity forwarded, even for a valid token)', async () => {
    const token = await h.token({ sub: '77' });
    const response = await fetch(`${h.url}/api/auth/login/local`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    const echo = await json<Echo>(response);
    expect(echo.headers['x-user-id']).toBeUndefined();
    const invalid = await fetch(`${h.url}/api/genres`, { headers: { authorization: 'Bearer garbage' } });
    expect(invalid.status).toBe(200);
  });
});

describe('auth: optional routes', () => {
  it('proxies without a token and without identity headers', async () => {
    const response = await fetch(`${h.url}/api/tracks/5`, { headers: { 'x-user-id': '9' } });
    expect(response.status).toBe(200);
    const echo = await json<Echo>(response);
    expect(echo.service).toBe('catalog');
    for (const name of IDENTITY) expect(echo.headers[name], name).toBeUndefined();
  });

  it('adds the identity when a valid token is sent', async () => {
    const token = await h.token({ sub: '31' });
    const echo = await json<Echo>(await fetch(`${h.url}/api/tracks/5`, { headers: bearer(token) }));
    expect(echo.headers['x-user-id']).toBe('31');
  });

  it('answers 401 when a token is sent but invalid or expired', async () => {
    await expectError(await fetch(`${h.url}/api/tracks/5`, { headers: bearer('nope') }), 401, 'UNAUTHORIZED');
    const expired = await h.token({}, { expiresIn: now() - 5 });
    await expectError(await fetch(`${h.url}/api/tracks/5`, { headers: bearer(expired) }), 401, 'UNAUTHORIZED');
  });
});

describe('auth: admin routes', () => {
  it('refuses a LISTENER token with 403 FORBIDDEN', async () => {
    const token = await h.token({ role: 'LISTENER' });
    await expectError(await fetch(`${h.url}/api/admin/reports`, { headers: bearer(token) }), 403, 'FORBIDDEN');
  });

  it('refuses no token with 401', async () => {
    await expectError(await fetch(`${h.url}/api/admin/users/banned`), 401, 'UNAUTHORIZED');
  });

  it('proxies an ADMIN token to the owner service', async () => {
    const token = await h.token({ role: 'ADMIN', sub: '1' });
    const response = await fetch(`${h.url}/api/admin/users/banned`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    expect((await json<Echo>(response)).service).toBe('identity');
  });

  it('lets MOD-1 admin login through without a token', async () => {
    const response = await fetch(`${h.url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(200);
  });
});

describe('auth: revocation and account locks (Redis, REVOCATION_KEYS)', () => {
  it('refuses a token of a revoked session with 401', async () => {
    const token = await h.token({ sub: '501', sid: 'revoked-sid-501' });
    expect((await fetch(`${h.url}/api/users/me`, { headers: bearer(token) })).status).toBe(200);
    await h.redis.set(h.key('auth:revoked-session:revoked-sid-501'), '1', 'EX', 60);
    const body = await expectError(await fetch(`${h.url}/api/users/me`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
    expect(body.message).toMatch(/revoked/);
    // optional routes too: a revoked token is not silently downgraded to anonymous
    await expectError(await fetch(`${h.url}/api/tracks/1`, { headers: bearer(token) }), 401, 'UNAUTHORIZED');
  });

  it('refuses a banned user with 403 ACCOUNT_BANNED', async () => {
    await h.redis.set(h.key('auth:user-status:502'), 'banned', 'EX', 60);
    const token = await h.token({ sub: '502' });
    await expectError(await fetch(`${h.url}/api/users/me`, { headers: bearer(token) }), 403, 'ACCOUNT_BANNED');
  });

  it('refuses an account pending deletion (ACC-3/ACC-5) with 403 ACCOUNT_PENDING_DELETION', async () => {
    await h.redis.set(h.key('auth:user-status:504'), 'deleted', 'EX', 60);
    const token = await h.token({ sub: '504' });
    await expectError(await fetch(`${h.url}/api/users/me`, { headers: bearer(token) }), 403, 'ACCOUNT_PENDING_DELETION');
  });

  it('refuses a suspended user with 403 ACCOUNT_SUSPENDED until the end of the suspension', async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await h.redis.set(h.key('auth:user-status:503'), `suspended:${until}`, 'EX', 60);
    const token = await h.token({ sub: '503' });
    const body = await expectError(await fetch(`${h.url}/api/users/me`, { headers: bearer(token) }), 403, 'ACCOUNT_SUSPENDED');
    expect(body.message).toContain(until);
    await h.redis.set(h.key('auth:user-status:503'), `suspended:${new Date(Date.now() - 1000).toISOString()}`, 'EX', 60);
    expect((await fetch(`${h.url}/api/users/me`, { headers: bearer(token) })).status).toBe(200);
  });
});

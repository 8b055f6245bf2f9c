import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_KEYS } from '@msp/contracts';
import { callerHeaders, PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;
let admin: Record<string, string>;
let alice: Awaited<ReturnType<typeof verifiedUser>>;
const REDIRECT = 'https://app.example.com/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  h = await startIdentity('identity_apps', {
    ADMIN_ACCOUNTS: JSON.stringify([{ email: 'mod@example.com', username: 'moderator', password: 'moderator secret' }]),
  });
  const res = await h.app.inject({ method: 'POST', url: '/api/admin/login', payload: { email: 'mod@example.com', password: 'moderator secret' } });
  admin = callerHeaders(res.json().accessToken);
  alice = await verifiedUser(h, 'alice@example.com', 'Alice');
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function createApp(headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/apps',
    headers,
    payload: { name: 'Test app', redirectUris: [REDIRECT], confidential: false, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; clientId: string; clientSecret: string | null };
}

/** Consent approved with e-mail and password: the code from the redirect. */
async function authorize(clientId: string, challenge: string, scope = 'read write') {
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 'xyz',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/oauth/authorize',
    headers: FORM,
    payload: form({ ...params, decision: 'approve', email: 'alice@example.com', password: PASSWORD }),
  });
  expect(res.statusCode, res.body).toBe(303);
  const location = new URL(res.headers.location as string);
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get('state')).toBe('xyz');
  return location.searchParams.get('code')!;
}

async function token(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return h.app.inject({ method: 'POST', url: '/api/oauth/token', headers: { ...FORM, ...headers }, payload: form(fields) });
}

async function exchange(clientId: string, code: string, verifier: string) {
  const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { access_token: string; refresh_token: string; token_type: string; expires_in: number; scope: string };
}

describe('APP-1 APP-2 APP-3 APP-4 APP-5 APP-6 app registry', () => {
  it('registers, lists, reads, updates, rotates the secret and deletes; other users see nothing', async () => {
    const bob = await verifiedUser(h, 'bob@example.com', 'Bob');
    const created = await createApp(bob.headers, { name: 'Server app', confidential: true, homepageUrl: 'https://example.com' });
    expect(created).toMatchObject({
      clientId: expect.stringMatching(/^app_/),
      clientSecret: expect.stringMatching(/^secret_/),
      confidential: true,
      isSuspended: false,
    });
    const list = await h.app.inject({ method: 'GET', url: '/api/apps', headers: bob.headers });
    expect(list.json()).toMatchObject({ totalElements: 1, content: [{ id: created.id, name: 'Server app' }] });
    expect(list.json().content[0]).not.toHaveProperty('clientSecret');
    expect((await h.app.inject({ method: 'GET', url: `/api/apps/${created.id}`, headers: alice.headers })).statusCode).toBe(404);

    const patched = await h.app.inject({ method: 'PATCH', url: `/api/apps/${created.id}`, headers: bob.headers, payload: { name: 'Renamed' } });
    expect(patched.json()).toMatchObject({ name: 'Renamed', redirectUris: [REDIRECT] });
    const rotated = await h.app.inject({ method: 'POST', url: `/api/apps/${created.id}/secret`, headers: bob.headers });
    expect(rotated.json().clientSecret).not.toBe(created.clientSecret);

    expect((await h.app.inject({ method: 'DELETE', url: `/api/apps/${created.id}`, headers: bob.headers })).statusCode).toBe(204);
    expect((await h.app.inject({ method: 'GET', url: `/api/apps/${created.id}`, headers: bob.headers })).statusCode).toBe(404);
  });

  it('refuses bad input with 400, anonymous callers with 401, and an eleventh app with 403', async () => {
    const bad = [
      { name: '', redirectUris: [REDIRECT], confidential: false },
      { name: 'x', redirectUris: [], confidential: false },
      { name: 'x', redirectUris: ['http://evil.example.com/cb'], confidential: false },
      { name: 'x', redirectUris: ['https://a.example.com/cb#frag'], confidential: false },
      { name: 'x', redirectUris: ['not a url'], confidential: false },
      { name: 'x', redirectUris: [REDIRECT] },
    ];
    for (const payload of bad) {
      const res = await h.app.inject({ method: 'POST', url: '/api/apps', headers: alice.headers, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await h.app.inject({ method: 'POST', url: '/api/apps', payload: { name: 'x', redirectUris: [REDIRECT], confidential: false } })).statusCode).toBe(
      401,
    );
    const carol = await verifiedUser(h, 'carol@example.com', 'Carol');
    await Promise.all(
      Array.from({ length: 12 }, () =>
        h.app.inject({ method: 'POST', url: '/api/apps', headers: carol.headers, payload: { name: 'n', redirectUris: [REDIRECT], confidential: false } }),
      ),
    );
    const list = await h.app.inject({ method: 'GET', url: '/api/apps?size=100', headers: carol.headers });
    expect(list.json().totalElements).toBe(10);
    const more = await h.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: carol.headers,
      payload: { name: 'n', redirectUris: [REDIRECT], confidential: false },
    });
    expect(more.statusCode).toBe(403);
  });
});

describe('APP-11 APP-12 APP-13 APP-16 code + PKCE', () => {
  it('shows the consent page, issues a code on approval and app tokens for the verifier', async () => {
    const app = await createApp(alice.headers);
    const { verifier, challenge } = pkce();
    const page = await h.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${form({ response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT, scope: 'write', code_challenge: challenge, code_challenge_method: 'S256' })}`,
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).toContain('Test app');
    expect(page.body).toContain('name="code_challenge"');

    const code = await authorize(app.clientId, challenge, 'write engage');
    const tokens = await exchange(app.clientId, code, verifier);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'read write engage', refresh_token: expect.any(String) });
    expect(tokens.expires_in).toBeGreaterThanOrEqual(1798);
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: String(alice.userId), azp: app.clientId, scope: 'read write engage', iss: 'msp-identity', role: 'LISTENER' });

    const metadata = await h.app.inject({ method: 'GET', url: '/api/.well-known/oauth-authorization-server' });
    expect(metadata.json()).toMatchObject({ code_challenge_methods_supported: ['S256'], token_endpoint: expect.stringMatching(/\/api\/oauth\/token$/) });
  });

  it('refuses a redirect_uri that does not match exactly, an unknown client, and a missing or plain PKCE challenge', async () => {
    const app = await createApp(alice.headers);
    const { challenge } = pkce();
    const base = { response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' };
    const get = (params: Record<string, string>) => h.app.inject({ method: 'GET', url: `/api/oauth/authorize?${form(params)}` });
    for (const redirect of [`${REDIRECT}/`, `${REDIRECT}?x=1`, 'https://evil.example.com/callback', REDIRECT.toUpperCase()]) {
      const res = await get({ ...base, redirect_uri: redirect });
      expect(res.statusCode, redirect).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
    expect((await get({ ...base, client_id: 'app_nope' })).json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'client_id' }] });
    const { code_challenge: _c, ...noChallenge } = base;
    for (const params of [
      noChallenge,
      { ...base, code_challenge_method: 'plain' },
      { ...base, code_challenge_method: '' },
      { ...base, response_type: 'token' },
      { ...base, scope: 'admin' },
    ]) {
      const res = await get(params as Record<string, string>);
      expect(res.statusCode, JSON.stringify(params)).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(location.searchParams.get('error')).toMatch(/invalid_request|unsupported_response_type|invalid_scope/);
      expect(location.searchParams.get('code')).toBeNull();
    }
  });

  it('denial returns access_denied; a wrong password shows the page again (401), or an ErrorResponse to non-browsers', async () => {
    const app = await createApp(alice.headers);
    const { challenge } = pkce();
    const params = {
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's1',
    };
    const deny = await h.app.inject({ method: 'POST', url: '/api/oauth/authorize', headers: FORM, payload: form({ ...params, decision: 'deny' }) });
    expect(deny.statusCode).toBe(303);
    expect(new URL(deny.headers.location as string).searchParams.get('error')).toBe('access_denied');
    const wrongPassword = (accept: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/oauth/authorize',
        headers: { ...FORM, accept },
        payload: form({ ...params, decision: 'approve', email: 'alice@example.com', password: 'not the password' }),
      });
    // A browser sees the page again; any other client the ErrorResponse.
    const page = await wrongPassword('text/html,application/xhtml+xml');
    expect(page.statusCode).toBe(401);
    expect(page.body).toContain('id="error"');
    const api = await wrongPassword('application/json');
    expect(api.json()).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
  });

  it('a replayed code is refused and revokes every token of its grant', async () => {
    const app = await createApp(alice.headers);
    const { verifier, challenge } = pkce();
    const code = await authorize(app.clientId, challenge);
    const tokens = await exchange(app.clientId, code, verifier);
    const sid = decodeJwt(tokens.access_token).sid as string;
    const replay = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: app.clientId, code_verifier: verifier });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_grant', code: 'INVALID_TOKEN' });
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(sid))).toBe('1');
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.clientId });
    expect(refresh.json().error).toBe('invalid_grant');
  });

  it('a wrong verifier or redirect_uri at the token endpoint is refused', async () => {
    const app = await createApp(alice.headers);
    const { challenge } = pkce();
    const code = await authorize(app.clientId, challenge);
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: app.clientId, code_verifier: pkce().verifier });
    expect(res.json().error).toBe('invalid_grant');
    const noVerifier = await token({
      grant_type: 'authorization_code',
      code: await authorize(app.clientId, challenge),
      redirect_uri: REDIRECT,
      client_id: app.clientId,
    });
    expect(noVerifier.statusCode).toBe(400);
  });
});

describe('APP-13 APP-14 APP-15 refresh rotation, revocation, introspection', () => {
  it('rotates refresh tokens; reusing a rotated one revokes the family', async () => {
    const app = await createApp(alice.headers);
    const { verifier, challenge } = pkce();
    const first = await exchange(app.clientId, await authorize(app.clientId, challenge), verifier);
    const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.clientId });
    expect(second.statusCode, second.body).toBe(200);
    const rotated = second.json() as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(rotated.access_token).sid).toBe(decodeJwt(first.access_token).sid);

    const reuse = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.clientId });
    expect(reuse.json().error).toBe('invalid_grant');
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(decodeJwt(first.access_token).sid as string))).toBe('1');
    expect((await token({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id: app.clientId })).json().error).toBe('invalid_grant');
  });

  it('confidential apps must authenticate; introspection shows only the app its own live tokens; revocation ends the grant', async () => {
    const app = await createApp(alice.headers, { confidential: true });
    const other = await createApp(alice.headers);
    const basic = { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` };
    const { verifier, challenge } = pkce();
    const code = await authorize(app.clientId, challenge);
    const noSecret = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: app.clientId, code_verifier: verifier });
    expect(noSecret.json().error).toBe('invalid_client');
    const code2 = await authorize(app.clientId, challenge);
    const ok = await token({ grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT, code_verifier: verifier }, basic);
    expect(ok.statusCode, ok.body).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = ok.json();

    const introspect = (tokenValue: string, headers: Record<string, string>, extra: Record<string, string> = {}) =>
      h.app.inject({ method: 'POST', url: '/api/oauth/introspect', headers: { ...FORM, ...headers }, payload: form({ token: tokenValue, ...extra }) });
    expect((await introspect(accessToken, basic)).json()).toMatchObject({
      active: true,
      client_id: app.clientId,
      scope: 'read write',
      sub: String(alice.userId),
    });
    expect((await introspect(refreshToken, basic)).json()).toMatchObject({ active: true, token_type: 'refresh_token' });
    expect((await introspect(accessToken, {}, { client_id: other.clientId })).json()).toEqual({ active: false });
    expect((await introspect(accessToken, {}, { client_id: app.clientId, client_secret: 'wrong' })).statusCode).toBe(401);

    const revoke = await h.app.inject({ method: 'POST', url: '/api/oauth/revoke', headers: { ...FORM, ...basic }, payload: form({ token: refreshToken }) });
    expect(revoke.statusCode).toBe(200);
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(decodeJwt(accessToken).sid as string))).toBe('1');
    expect((await introspect(accessToken, basic)).json()).toEqual({ active: false });
    expect(
      (await h.app.inject({ method: 'POST', url: '/api/oauth/revoke', headers: { ...FORM, ...basic }, payload: form({ token: 'unknown' }) })).statusCode,
    ).toBe(200);
  });
});

describe('APP-9 APP-10 APP-7 APP-8 authorized apps and suspension', () => {
  it('lists the apps the user authorized and revokes one (its grants get revoked keys)', async () => {
    const dave = await verifiedUser(h, 'dave@example.com', 'Dave');
    const app = await createApp(dave.headers, { name: 'Dave app' });
    const { verifier, challenge } = pkce();
    const code = await authorize(app.clientId, challenge, 'messages');
    const tokens = await exchange(app.clientId, code, verifier);
    const list = await h.app.inject({ method: 'GET', url: '/api/users/me/authorized-apps', headers: alice.headers });
    expect(list.json().content).toEqual(
      expect.arrayContaining([expect.objectContaining({ clientId: app.clientId, name: 'Dave app', scopes: ['read', 'messages'] })]),
    );
    const revoke = await h.app.inject({ method: 'DELETE', url: `/api/users/me/authorized-apps/${app.clientId}`, headers: alice.headers });
    expect(revoke.statusCode).toBe(204);
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(decodeJwt(tokens.access_token).sid as string))).toBe('1');
    const after = await h.app.inject({ method: 'GET', url: '/api/users/me/authorized-apps', headers: alice.headers });
    expect(after.json().content.map((a: { clientId: string }) => a.clientId)).not.toContain(app.clientId);
    expect((await h.app.inject({ method: 'DELETE', url: '/api/users/me/authorized-apps/app_unknown', headers: alice.headers })).statusCode).toBe(404);
  });

  it('an admin suspends an app: its key is set, no tokens are issued; unsuspend clears it; non-admins get 403', async () => {
    const app = await createApp(alice.headers);
    const { verifier, challenge } = pkce();
    const tokens = await exchange(app.clientId, await authorize(app.clientId, challenge), verifier);
    expect((await h.app.inject({ method: 'POST', url: `/api/admin/apps/${app.id}/suspend`, headers: alice.headers })).statusCode).toBe(403);
    const suspended = await h.app.inject({ method: 'POST', url: `/api/admin/apps/${app.id}/suspend`, headers: admin });
    expect(suspended.json()).toMatchObject({ isSuspended: true });
    expect(await h.app.redis.get(REVOCATION_KEYS.appStatus(app.clientId))).toBe('suspended');
    expect((await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.clientId })).json().error).toBe('invalid_client');
    const page = await h.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${form({ response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' })}`,
    });
    expect(page.statusCode).toBe(403);
    await h.app.inject({ method: 'POST', url: `/api/admin/apps/${app.id}/unsuspend`, headers: admin });
    expect(await h.app.redis.get(REVOCATION_KEYS.appStatus(app.clientId))).toBeNull();
    expect((await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.clientId })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'POST', url: '/api/admin/apps/999999/suspend', headers: admin })).statusCode).toBe(404);
  });
});

describe('APP-1 APP-4 APP-5 APP-7 APP-10 APP-12 app and grant events (notification copies them for webhooks)', () => {
  it('publishes identity.app.* through the outbox with every change of an app or grant', async () => {
    type Row = { type: string; payload: { data: Record<string, unknown> } };
    const events = async (appId: number) =>
      ((await h.app.infra.prisma.outboxEvent.findMany({ where: { type: { startsWith: 'identity.app.' } }, orderBy: { seq: 'asc' } })) as unknown as Row[])
        .filter((e) => e.payload.data.appId === appId)
        .map((e) => ({ type: e.type, ...e.payload.data }));
    const app = await createApp(alice.headers, { name: 'Evented' });
    await h.app.inject({ method: 'PATCH', url: `/api/apps/${app.id}`, headers: alice.headers, payload: { name: 'Evented 2' } });
    await h.app.inject({ method: 'POST', url: `/api/admin/apps/${app.id}/suspend`, headers: admin });
    await h.app.inject({ method: 'POST', url: `/api/admin/apps/${app.id}/unsuspend`, headers: admin });
    await authorize(app.clientId, pkce().challenge, 'read webhooks');
    await h.app.inject({ method: 'DELETE', url: `/api/users/me/authorized-apps/${app.clientId}`, headers: alice.headers });
    await h.app.inject({ method: 'DELETE', url: `/api/apps/${app.id}`, headers: alice.headers });
    const ownerId = alice.userId;
    expect(await events(app.id)).toEqual([
      expect.objectContaining({ type: 'identity.app.registered.v1', appId: app.id, ownerId, name: 'Evented', suspended: false, clientId: app.clientId }),
      expect.objectContaining({ type: 'identity.app.updated.v1', name: 'Evented 2', suspended: false }),
      expect.objectContaining({ type: 'identity.app.suspended.v1', suspended: true }),
      expect.objectContaining({ type: 'identity.app.suspended.v1', suspended: false }),
      expect.objectContaining({ type: 'identity.app.grant-changed.v1', userId: ownerId, scopes: ['read', 'webhooks'] }),
      expect.objectContaining({ type: 'identity.app.grant-revoked.v1', userId: ownerId, reason: 'user-revoked' }),
      { type: 'identity.app.deleted.v1', appId: app.id, ownerId },
    ]);
  });
});

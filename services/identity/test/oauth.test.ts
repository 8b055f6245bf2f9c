import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestJwks, type TestJwks } from '@msp/testing';
import { PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;
let jwks: TestJwks;
const CLIENT_ID = 'identity-test-client';
/** Token endpoint stand-in: code → ID token, checked PKCE verifier recorded. */
const codes = new Map<string, string>();
const tokenRequests: URLSearchParams[] = [];
const tokenServer = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const form = new URLSearchParams(raw);
    tokenRequests.push(form);
    const idToken = codes.get(form.get('code') ?? '');
    if (!idToken) res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id_token: idToken, access_token: 'x' }));
  });
});

const idToken = (claims: Record<string, unknown>, options: Parameters<TestJwks['sign']>[1] = {}) =>
  jwks.sign({ iss: jwks.issuer, aud: CLIENT_ID, email_verified: true, ...claims }, options);

beforeAll(async () => {
  jwks = await createTestJwks();
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  const tokenUrl = `http://127.0.0.1:${(tokenServer.address() as { port: number }).port}/token`;
  h = await startIdentity('identity_oauth', {
    GOOGLE_CLIENT_ID: CLIENT_ID,
    GOOGLE_JWKS_URL: jwks.url,
    GOOGLE_ISSUERS: jwks.issuer,
    GOOGLE_TOKEN_URL: tokenUrl,
    GOOGLE_AUTH_URL: 'https://accounts.example.test/auth',
  });
});

afterAll(async () => {
  await h?.close();
  await jwks?.close();
  await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => h.app.inject({ method: 'POST', url, payload, headers });

describe('AUTH-13 login with an identity provider (deprecated)', () => {
  it('creates a verified account on the first login (isNewUser) and logs into it afterwards', async () => {
    const token = await idToken({ sub: 'g-100', email: 'gina@gmail.example', name: 'Gina G' });
    const first = await post('/api/auth/login/google', {
      accessToken: 'ignored',
      idToken: token,
      deviceInfo: { deviceType: 'DESKTOP', fingerPrint: 'fp', deviceName: 'Laptop' },
    });
    expect(first.statusCode).toBe(200);
    expect(first.headers.deprecation).toBe('true');
    expect(first.json()).toMatchObject({ tokenType: 'Bearer', user: { username: 'gina-g', displayName: 'Gina G', isNewUser: true } });
    expect(String(first.headers['set-cookie'])).toMatch(/^refreshToken=/);
    const second = await post('/api/auth/login/google', { accessToken: 'x', idToken: token });
    expect(second.json().user).toMatchObject({ id: first.json().user.id, isNewUser: false });
    const me = await h.app.inject({ method: 'GET', url: '/api/users/me', headers: { 'x-user-id': String(first.json().user.id) } });
    expect(me.json()).toMatchObject({ hasPassword: false, emailVerified: true });
  });

  it('refuses a wrong audience, an expired token, a foreign key and a wrong issuer with 401 INVALID_IDP_TOKEN', async () => {
    const bad = [
      await jwks.sign({ iss: jwks.issuer, aud: 'someone-else', sub: 'g-1', email: 'a@x.example', email_verified: true }),
      await idToken({ sub: 'g-1', email: 'a@x.example' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      await idToken({ sub: 'g-1', email: 'a@x.example' }, { signWithForeignKey: true }),
      await jwks.sign({ iss: 'https://evil.example', aud: CLIENT_ID, sub: 'g-1', email: 'a@x.example', email_verified: true }),
      'xxxxxxxx.yyyyyyyy.zzzzzzzz',
    ];
    for (const token of bad) {
      const res = await post('/api/auth/login/google', { accessToken: 'x', idToken: token });
      expect(res.statusCode, token).toBe(401);
      expect(res.json().code).toBe('INVALID_IDP_TOKEN');
    }
    expect(await h.app.infra.prisma.user.count({ where: { email: 'a@x.example' } })).toBe(0);
  });

  it('links to an existing account with the same verified e-mail', async () => {
    const local = await verifiedUser(h, 'lena@example.com', 'Lena');
    const res = await post('/api/auth/login/google', { accessToken: 'x', idToken: await idToken({ sub: 'g-lena', email: 'lena@example.com' }) });
    expect(res.json().user).toMatchObject({ id: local.userId, isNewUser: false });
  });

  it('linking to a never-verified account drops its password (no pre-hijacking)', async () => {
    await post('/api/auth/register/local', { email: 'victim@example.com', displayName: 'Squatter', password: PASSWORD, dateOfBirth: '1990-01-01' });
    const res = await post('/api/auth/login/google', { accessToken: 'x', idToken: await idToken({ sub: 'g-victim', email: 'victim@example.com' }) });
    expect(res.statusCode).toBe(200);
    const squatter = await post('/api/auth/login/local', { email: 'victim@example.com', password: PASSWORD });
    expect(squatter.json().code).toBe('INVALID_CREDENTIALS');
  });
});

describe('AUTH-12 exchange an oauth token with the service', () => {
  it('accepts an ID token, an authorization code and refuses unknown one-time codes', async () => {
    const viaIdToken = await post(
      '/api/auth/oauth/google',
      { authTokenDto: await idToken({ sub: 'g-200', email: 'hana@gmail.example', name: 'Hana' }) },
      { 'x-refresh-token-delivery': 'body' },
    );
    expect(viaIdToken.statusCode).toBe(200);
    expect(viaIdToken.json()).toMatchObject({ user: { isNewUser: true }, refreshToken: expect.any(String), refreshExpiresIn: 2592000 });

    codes.set('auth-code-1', await idToken({ sub: 'g-200', email: 'hana@gmail.example' }));
    const viaCode = await post('/api/auth/oauth/google', { authTokenDto: 'auth-code-1', redirectUri: 'http://localhost:3000/oauth/callback' });
    expect(viaCode.json().user).toMatchObject({ id: viaIdToken.json().user.id, isNewUser: false });
    expect(tokenRequests.at(-1)?.get('redirect_uri')).toBe('http://localhost:3000/oauth/callback');
    const badCode = await post('/api/auth/oauth/google', { authTokenDto: 'unknown-code' });
    expect(badCode.json().code).toBe('INVALID_IDP_TOKEN');
    expect((await post('/api/auth/oauth/google', { authTokenDto: 'otc_unknown' })).json().code).toBe('INVALID_TOKEN');
    expect((await post('/api/auth/oauth/google', {})).json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'authTokenDto' }] });
  });
});

describe('AUTH-10 and AUTH-11 redirect flow', () => {
  it('redirects to the provider with state, nonce and PKCE, and back to the web app with a single-use code', async () => {
    const start = await h.app.inject({ method: 'GET', url: '/api/oauth2/authorization/google?returnTo=/library' });
    expect(start.statusCode).toBe(302);
    const consent = new URL(String(start.headers.location));
    expect(consent.origin + consent.pathname).toBe('https://accounts.example.test/auth');
    const q = consent.searchParams;
    expect(q.get('client_id')).toBe(CLIENT_ID);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('redirect_uri')).toBe('http://localhost:8080/api/login/oauth2/code/google');

    codes.set('cb-code', await idToken({ sub: 'g-300', email: 'ivy@gmail.example', nonce: q.get('nonce') }));
    const back = await h.app.inject({ method: 'GET', url: `/api/login/oauth2/code/google?code=cb-code&state=${q.get('state')}` });
    expect(back.statusCode).toBe(302);
    const landing = new URL(String(back.headers.location));
    expect(landing.origin + landing.pathname).toBe('http://localhost:3000/oauth/callback');
    expect(landing.searchParams.get('returnTo')).toBe('/library');
    expect(tokenRequests.at(-1)?.get('code_verifier')).toMatch(/^[\w-]{43,}$/);
    const otc = landing.searchParams.get('code')!;
    expect(otc.startsWith('otc_')).toBe(true);

    const exchanged = await post('/api/auth/oauth/google', { authTokenDto: otc });
    expect(exchanged.json().user).toMatchObject({ username: 'ivy', isNewUser: true });
    expect((await post('/api/auth/oauth/google', { authTokenDto: otc })).json().code).toBe('INVALID_TOKEN');

    const replay = await h.app.inject({ method: 'GET', url: `/api/login/oauth2/code/google?code=cb-code&state=${q.get('state')}` });
    expect(new URL(String(replay.headers.location)).searchParams.get('error')).toBe('INVALID_TOKEN');
    expect((await h.app.inject({ method: 'GET', url: '/api/oauth2/authorization/google?returnTo=//evil.example' })).statusCode).toBe(400);
    expect((await h.app.inject({ method: 'GET', url: '/api/login/oauth2/code/google?code=x' })).statusCode).toBe(400);
  });
});

describe('AUTH-14 register with an identity provider (deprecated)', () => {
  it('creates the account once; a second registration answers 409', async () => {
    const token = await idToken({ sub: 'g-400', email: 'jo@gmail.example', name: 'Jo' });
    const res = await post('/api/auth/register/google', { idToken: token, username: 'jo-music', city: 'Rome' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ message: expect.any(String), userId: expect.any(Number), username: 'jo-music' });
    expect((await post('/api/auth/register/google', { idToken: token })).statusCode).toBe(409);
    expect((await post('/api/auth/register/google', { idToken: 'garbage.token.here' })).statusCode).toBe(401);
  });
});

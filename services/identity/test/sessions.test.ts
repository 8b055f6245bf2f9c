import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_KEYS } from '@msp/contracts';
import { callerHeaders, login, PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_sessions', {
    LOGIN_FAILURES_PER_ACCOUNT: '3',
    LOGIN_FAILURES_PER_ADDRESS: '6',
    ADMIN_ACCOUNTS: JSON.stringify([{ email: 'root@example.com', username: 'root-admin', password: 'admin secret 123' }]),
  });
});

afterAll(async () => {
  await h?.close();
});

const redisKey = (key: string) => h.app.redis.get(key);

describe('AUTH-1 login with email and password', () => {
  it('refuses an unverified account with 403 EMAIL_NOT_VERIFIED, only after the right password', async () => {
    await h.app.inject({
      method: 'POST',
      url: '/api/auth/register/local',
      payload: { email: 'unverified@example.com', displayName: 'Un Verified', password: PASSWORD, dateOfBirth: '1990-01-01' },
    });
    const wrong = await h.app.inject({
      method: 'POST',
      url: '/api/auth/login/local',
      headers: { 'x-forwarded-for': '10.1.0.1' },
      payload: { email: 'unverified@example.com', password: 'not the password' },
    });
    expect(wrong.json().code).toBe('INVALID_CREDENTIALS');
    const right = await h.app.inject({
      method: 'POST',
      url: '/api/auth/login/local',
      headers: { 'x-forwarded-for': '10.1.0.1' },
      payload: { email: 'unverified@example.com', password: PASSWORD },
    });
    expect(right.statusCode).toBe(403);
    expect(right.json().code).toBe('EMAIL_NOT_VERIFIED');
  });

  it('returns the Login response, sets the refresh cookie and puts the token in the body only on request', async () => {
    await verifiedUser(h, 'carol@example.com', 'Carol');
    const res = await h.app.inject({ method: 'POST', url: '/api/auth/login/local', payload: { email: 'Carol@Example.com', password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresIn', 'tokenType', 'user']);
    expect(body).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 1800,
      user: { username: 'carol', displayName: 'Carol', tier: 'FREE', role: 'LISTENER', isNewUser: false, avatarUrl: null },
    });
    expect(body.user.profileUrl).toBe('http://localhost:3000/carol');
    const [cookie, device] = res.headers['set-cookie'] as string[];
    expect(cookie).toMatch(/^refreshToken=[\w-]{43}; Max-Age=2592000; Path=\/api\/auth; HttpOnly; SameSite=Lax$/);
    // The client becomes a known device of the account (README, Throttling).
    expect(device).toMatch(/^knownDevice=[\w-]{43}; Max-Age=15552000; Path=\/api\/auth; HttpOnly; SameSite=Lax$/);
    const claims = callerHeaders(body.accessToken);
    expect(claims['x-user-id']).toBe(String(body.user.id));
  });

  it('answers unknown e-mails and wrong passwords alike (code and argon2 cost)', async () => {
    const time = async (email: string) => {
      const started = performance.now();
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login/local',
        headers: { 'x-forwarded-for': '10.2.0.1' },
        payload: { email, password: 'wrong password!' },
      });
      return { ms: performance.now() - started, body: res.json(), status: res.statusCode };
    };
    const unknown = await time('nobody@example.com');
    const wrong = await time('carol@example.com');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body.message).toBe(wrong.body.message);
    // Both paths run one argon2 verification (≥ 10 ms here); a skipped hash would answer in ~1 ms.
    expect(unknown.ms).toBeGreaterThan(10);
    expect(wrong.ms).toBeGreaterThan(10);
  });

  it('locks an account after repeated failures with 429 RATE_LIMITED and Retry-After, even for the right password from a device it does not know', async () => {
    await verifiedUser(h, 'dave@example.com', 'Dave');
    for (let i = 0; i < 3; i += 1) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login/local',
        headers: { 'x-forwarded-for': `10.3.0.${i}` },
        payload: { email: 'dave@example.com', password: 'guess number ' + i },
      });
      expect(res.statusCode).toBe(401);
    }
    const locked = await h.app.inject({
      method: 'POST',
      url: '/api/auth/login/local',
      headers: { 'x-forwarded-for': '10.3.1.1' },
      payload: { email: 'dave@example.com', password: PASSWORD },
    });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('locks a client address after repeated failures on any accounts', async () => {
    for (let i = 0; i < 6; i += 1) {
      await h.app.inject({
        method: 'POST',
        url: '/api/auth/login/local',
        headers: { 'x-forwarded-for': '10.4.0.1' },
        payload: { email: `spray${i}@example.com`, password: 'password guess' },
      });
    }
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/auth/login/local',
      headers: { 'x-forwarded-for': '10.4.0.1' },
      payload: { email: 'carol@example.com', password: PASSWORD },
    });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    const other = await h.app.inject({
      method: 'POST',
      url: '/api/auth/login/local',
      headers: { 'x-forwarded-for': '10.4.0.2' },
      payload: { email: 'carol@example.com', password: PASSWORD },
    });
    expect(other.statusCode).toBe(200);
  });
});

describe('AUTH-2 refresh access token', () => {
  it('rotates the refresh token; a rotated one revokes the whole family (401 REFRESH_TOKEN_REUSED)', async () => {
    const first = await login(h, 'carol@example.com');
    const refresh = (token: string) =>
      h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', headers: { 'x-refresh-token-delivery': 'body' }, payload: { refreshToken: token } });
    const r1 = await refresh(first.refreshToken);
    expect(r1.statusCode).toBe(200);
    const second = r1.json();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.refreshExpiresIn).toBe(2592000);
    const sid = callerHeaders(second.accessToken)['x-session-id'];
    expect(sid).toBe(first.headers['x-session-id']);
    expect(await redisKey(REVOCATION_KEYS.revokedSession(sid!))).toBeNull();

    const reused = await refresh(first.refreshToken);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().code).toBe('REFRESH_TOKEN_REUSED');
    expect(await redisKey(REVOCATION_KEYS.revokedSession(sid!))).toBe('1');
    expect(await h.app.redis.ttl(REVOCATION_KEYS.revokedSession(sid!))).toBeGreaterThanOrEqual(1800);
    // The newest token of the family is dead too.
    const after = await refresh(second.refreshToken);
    expect(after.statusCode).toBe(401);
  });

  it('reads the cookie when there is no body, and refuses missing or unknown tokens', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/api/auth/login/local', payload: { email: 'carol@example.com', password: PASSWORD } });
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    const viaCookie = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', headers: { cookie } });
    expect(viaCookie.statusCode).toBe(200);
    expect(viaCookie.json().refreshToken).toBeUndefined();
    expect(String(viaCookie.headers['set-cookie'])).toMatch(/^refreshToken=[\w-]{43};/);
    const missing = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(missing.json().code).toBe('INVALID_REFRESH_TOKEN');
    const unknown = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: 'x'.repeat(43) } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().code).toBe('INVALID_REFRESH_TOKEN');
  });
});

describe('AUTH-3 and AUTH-4 logout', () => {
  it('AUTH-3 revokes the session of the refresh token, clears the cookie, and is idempotent', async () => {
    const s = await login(h, 'carol@example.com');
    const res = await h.app.inject({ method: 'POST', url: '/api/auth/logout', payload: { refreshToken: s.refreshToken } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String) });
    expect(String(res.headers['set-cookie'])).toContain('Max-Age=0');
    expect(await redisKey(REVOCATION_KEYS.revokedSession(s.headers['x-session-id']!))).toBe('1');
    const again = await h.app.inject({ method: 'POST', url: '/api/auth/logout', payload: { refreshToken: s.refreshToken } });
    expect(again.statusCode).toBe(200);
    const refresh = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: s.refreshToken } });
    expect(refresh.statusCode).toBe(401);
  });

  it('AUTH-4 revokes every session of the caller', async () => {
    const a = await login(h, 'carol@example.com');
    const b = await login(h, 'carol@example.com');
    const res = await h.app.inject({ method: 'POST', url: '/api/auth/logout-all', headers: a.headers });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    for (const s of [a, b]) expect(await redisKey(REVOCATION_KEYS.revokedSession(s.headers['x-session-id']!))).toBe('1');
    const refresh = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: b.refreshToken } });
    expect(refresh.json().code).toBe('INVALID_REFRESH_TOKEN');
    expect((await h.app.inject({ method: 'POST', url: '/api/auth/logout-all' })).statusCode).toBe(401);
  });
});

describe('MOD-1 admin login', () => {
  it('logs configured admins in with a 30-minute token and no refresh token; AUTH-1 refuses them', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/api/admin/login', payload: { email: 'root@example.com', password: 'admin secret 123' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    const body = res.json();
    expect(body).toEqual({
      accessToken: expect.any(String),
      expiresIn: 1800,
      adminUser: { id: expect.any(Number), username: 'root-admin', displayName: 'root-admin', avatarUrl: null },
    });
    expect(callerHeaders(body.accessToken)['x-user-role']).toBe('ADMIN');
    const viaUserLogin = await h.app.inject({
      method: 'POST',
      url: '/api/auth/login/local',
      payload: { email: 'root@example.com', password: 'admin secret 123' },
    });
    expect(viaUserLogin.json().code).toBe('INVALID_CREDENTIALS');
    const userOnAdmin = await h.app.inject({ method: 'POST', url: '/api/admin/login', payload: { email: 'carol@example.com', password: PASSWORD } });
    expect(userOnAdmin.json().code).toBe('INVALID_CREDENTIALS');
  });
});

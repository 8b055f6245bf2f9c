import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_KEYS } from '@msp/contracts';
import { login, PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startIdentity('identity_security', { FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: '4' });
});

afterAll(async () => {
  await h?.close();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => h.app.inject({ method: 'POST', url, payload, headers });

describe('AUTH-6 verify email', () => {
  it('verifies once; the used link answers 409 ALREADY_VERIFIED; unknown tokens 400 INVALID_TOKEN', async () => {
    await post('/api/auth/register/local', { email: 'vera@example.com', displayName: 'Vera', password: PASSWORD, dateOfBirth: '1991-01-01' });
    const { token, link } = await h.mail.tokenFor('vera@example.com', /verify/i);
    expect(link.startsWith('http://localhost:3000/verify-email?token=')).toBe(true);
    expect((await post('/api/auth/verify-email', { token })).statusCode).toBe(200);
    const again = await post('/api/auth/verify-email', { token });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('ALREADY_VERIFIED');
    const bogus = await post('/api/auth/verify-email', { token: 'nope' });
    expect(bogus.json().code).toBe('INVALID_TOKEN');
    // Only the hash of the token is stored.
    const rows = await h.app.infra.prisma.oneTimeToken.findMany({ select: { tokenHash: true } });
    expect(rows.some((r) => r.tokenHash === token)).toBe(false);
  });
});

describe('AUTH-7 resend verification email', () => {
  it('answers the same for known and unknown addresses, then 429 RESEND_COOLDOWN', async () => {
    await post('/api/auth/register/local', { email: 'late@example.com', displayName: 'Late', password: PASSWORD, dateOfBirth: '1991-01-01' });
    const known = await post('/api/auth/resend-verification', { email: 'late@example.com' });
    const unknown = await post('/api/auth/resend-verification', { email: 'ghost@example.com' });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    expect(known.json()).toEqual({ message: expect.any(String), coolDown: 60 });
    for (const email of ['late@example.com', 'ghost@example.com']) {
      const again = await post('/api/auth/resend-verification', { email });
      expect(again.statusCode).toBe(429);
      expect(again.json().code).toBe('RESEND_COOLDOWN');
      expect(again.headers['retry-after']).toBeDefined();
    }
    // The newest link works; the replaced first one does not.
    const sent = h.mail.mails.filter((m) => m.to === 'late@example.com');
    await h.mail.tokenFor('late@example.com', /verify/i, h.mail.mails.indexOf(sent[0]!) + 1);
  });
});

describe('AUTH-8 and AUTH-9 password recovery', () => {
  it('answers the same for known and unknown addresses; the link resets once and logs out everywhere', async () => {
    const user = await verifiedUser(h, 'rita@example.com', 'Rita');
    const before = h.mail.mails.length;
    const known = await post('/api/auth/forgot-password', { email: 'rita@example.com' }, { 'x-forwarded-for': '10.9.0.1' });
    const unknown = await post('/api/auth/forgot-password', { email: 'nobody@example.com' }, { 'x-forwarded-for': '10.9.0.1' });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    const { token, link } = await h.mail.tokenFor('rita@example.com', /reset/i, before);
    expect(link.startsWith('http://localhost:3000/change-password?token=')).toBe(true);

    const weak = await post('/api/auth/reset-password', { token, newPassword: 'password123' });
    expect(weak.json()).toMatchObject({ code: 'WEAK_PASSWORD', errors: [{ field: 'newPassword' }] });
    const res = await post('/api/auth/reset-password', { token, newPassword: 'a brand new secret' });
    expect(res.statusCode).toBe(200);
    expect((await post('/api/auth/reset-password', { token, newPassword: 'another new secret' })).json().code).toBe('INVALID_TOKEN');
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(user.headers['x-session-id']!))).toBe('1');
    await expect(login(h, 'rita@example.com')).rejects.toThrow(/401/);
    await login(h, 'rita@example.com', 'a brand new secret');
  });

  it('limits AUTH-8 per client address with 429 RATE_LIMITED', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push((await post('/api/auth/forgot-password', { email: `x${i}@example.com` }, { 'x-forwarded-for': '10.9.9.9' })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('SEC-4 change logged-in user password', () => {
  it('refuses a wrong current password with 403 INVALID_CURRENT_PASSWORD; the right one revokes the other sessions', async () => {
    const a = await verifiedUser(h, 'sam@example.com', 'Sam');
    const b = await login(h, 'sam@example.com');
    const patch = (payload: object) => h.app.inject({ method: 'PATCH', url: '/api/users/me/reset-password', headers: a.headers, payload });
    const wrong = await patch({ currentPassword: 'not my password', newPassword: 'a fresh passphrase' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('INVALID_CURRENT_PASSWORD');
    const ok = await patch({ currentPassword: PASSWORD, newPassword: 'a fresh passphrase' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: expect.any(String) });
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(b.headers['x-session-id']!))).toBe('1');
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(a.headers['x-session-id']!))).toBeNull();
    expect((await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: b.refreshToken } })).statusCode).toBe(401);
    expect((await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: a.refreshToken } })).statusCode).toBe(200);
  });
});

describe('SEC-1, SEC-2, SEC-3, USR-12 and USR-13 e-mail addresses', () => {
  it('changes the primary address only through the link sent to the new one', async () => {
    const u = await verifiedUser(h, 'emma@example.com', 'Emma');
    const taken = await h.app.inject({ method: 'PATCH', url: '/api/users/me/email', headers: u.headers, payload: { newEmail: 'sam@example.com' } });
    expect(taken.json().code).toBe('EMAIL_TAKEN');
    const before = h.mail.mails.length;
    const res = await h.app.inject({ method: 'PATCH', url: '/api/users/me/email?newEmail=emma.new@example.com', headers: u.headers });
    expect(res.statusCode).toBe(200);
    const { token, link } = await h.mail.tokenFor('emma.new@example.com', /confirm/i, before);
    expect(link.startsWith('http://localhost:3000/settings/verify-email-change?token=')).toBe(true);
    const verify = await h.app.inject({ method: 'POST', url: `/api/users/me/email/verify?token=${token}` });
    expect(verify.statusCode).toBe(200);
    const me = (await h.app.inject({ method: 'GET', url: '/api/users/me', headers: u.headers })).json();
    expect(me).toMatchObject({
      email: 'emma.new@example.com',
      emailVerified: true,
      emails: [{ email: 'emma.new@example.com', isPrimary: true, isVerified: true }],
    });
    // Only waits for the mail to arrive; the assertion below says whether it did.
    await h.mail.tokenFor('emma@example.com', /changed/i, before).catch(() => undefined);
    expect(h.mail.mails.some((m) => m.to === 'emma@example.com' && /changed/i.test(m.subject))).toBe(true);
    await login(h, 'emma.new@example.com');
  });

  it('adds a verified secondary address (SEC-2) and makes it primary (SEC-3)', async () => {
    const u = await verifiedUser(h, 'finn@example.com', 'Finn');
    const notMine = await post('/api/users/me/update-email-primary', { newEmail: 'other@example.com' }, u.headers);
    expect(notMine.json().code).toBe('EMAIL_NOT_FOUND');
    const before = h.mail.mails.length;
    expect((await post('/api/users/me/add-new-email', { newEmail: 'finn.work@example.com' }, u.headers)).statusCode).toBe(200);
    const { token } = await h.mail.tokenFor('finn.work@example.com', /confirm/i, before);
    expect((await post('/api/users/me/email/verify', { token })).statusCode).toBe(200);
    expect((await post('/api/users/me/email/verify', { token })).json().code).toBe('ALREADY_VERIFIED');
    await login(h, 'finn.work@example.com');
    expect((await post('/api/users/me/update-email-primary', { newEmail: 'finn.work@example.com' }, u.headers)).statusCode).toBe(200);
    const me = (await h.app.inject({ method: 'GET', url: '/api/users/me', headers: u.headers })).json();
    expect(me.email).toBe('finn.work@example.com');
    expect(me.emails).toEqual(
      expect.arrayContaining([
        { email: 'finn@example.com', isPrimary: false, isVerified: true },
        { email: 'finn.work@example.com', isPrimary: true, isVerified: true },
      ]),
    );
    const usr12 = await h.app.inject({ method: 'PATCH', url: '/api/users/me/email/start', headers: u.headers, payload: { newEmail: 'not-an-email' } });
    expect(usr12.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'newEmail' }] });
  });
});

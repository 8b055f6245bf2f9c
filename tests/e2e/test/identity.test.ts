import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import { PublicProfileSchema } from '@msp/contracts';
import { createTestJwks, waitFor, type TestJwks } from '@msp/testing';
import { Fleet } from './fleet.js';

const fleet = new Fleet();
const PASSWORD = 'a long enough secret';
const GOOGLE_CLIENT = 'e2e-google-client';
const mails: Array<{ to: string; subject: string; text: string }> = [];
let smtp: SMTPServer;
let google: TestJwks;

function json(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function tokenFromMail(to: string, subject: RegExp, after = 0): Promise<string> {
  const mail = await waitFor(() => mails.slice(after).find((m) => m.to === to && subject.test(m.subject)), { timeoutMs: 10_000, message: `no mail for ${to}` });
  return new URL(/https?:\/\/\S+\?token=[\w-]+/.exec(mail.text)![0]).searchParams.get('token')!;
}

async function register(email: string, displayName: string) {
  const res = await fleet.fetch('/api/auth/register/local', json({ email, displayName, password: PASSWORD, dateOfBirth: '1990-02-03' }));
  expect(res.status).toBe(201);
  return (await res.json()) as { userId: number; username: string };
}

async function verifiedUser(email: string, displayName: string) {
  const before = mails.length;
  const reg = await register(email, displayName);
  const token = await tokenFromMail(email, /verify/i, before);
  expect((await fleet.fetch('/api/auth/verify-email', json({ token }))).status).toBe(200);
  return reg;
}

async function login(email: string, password = PASSWORD) {
  const res = await fleet.fetch('/api/auth/login/local', json({ email, password }, { 'x-refresh-token-delivery': 'body' }));
  expect(res.status).toBe(200);
  return (await res.json()) as { accessToken: string; refreshToken: string; user: { id: number; username: string } };
}

/** Polls until the gateway refuses the token with `status` (bounded: the contract says at once, we allow 1 s). */
async function refusedWithin1s(accessToken: string, status: number, code: string) {
  const started = Date.now();
  const res = await waitFor(
    async () => {
      const r = await fleet.fetch('/api/users/me', { headers: bearer(accessToken) });
      return r.status === status ? r : undefined;
    },
    { timeoutMs: 1000, intervalMs: 50, message: `token still accepted after 1 s` },
  );
  expect(Date.now() - started).toBeLessThanOrEqual(1000);
  expect(((await res.json()) as { code: string }).code).toBe(code);
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void PostalMime.parse(Buffer.concat(chunks)).then((m) => {
          for (const r of session.envelope.rcptTo) mails.push({ to: r.address.toLowerCase(), subject: m.subject ?? '', text: m.text ?? '' });
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  google = await createTestJwks();
  await fleet.start(
    { JWT_ISSUER: 'msp-identity' },
    {
      identity: {
        SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`,
        MAIL_POLL_MS: '100',
        GOOGLE_CLIENT_ID: GOOGLE_CLIENT,
        GOOGLE_JWKS_URL: google.url,
        GOOGLE_ISSUERS: google.issuer,
        ADMIN_ACCOUNTS: JSON.stringify([{ email: 'admin@example.com', username: 'site-admin', password: 'admin password 1' }]),
      },
    },
  );
}, 120_000);

afterAll(async () => {
  await fleet.close();
  await google?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
}, 60_000);

describe('AUTH-5, AUTH-6, AUTH-1, AUTH-2 the account life cycle through the gateway', () => {
  it('register → mail → verify → login with cookie → rotate → reuse revokes the family within 1 s', async () => {
    const before = mails.length;
    const { username } = await register('ana@example.com', 'Ana Lima');
    const early = await fleet.fetch('/api/auth/login/local', json({ email: 'ana@example.com', password: PASSWORD }));
    expect(((await early.json()) as { code: string }).code).toBe('EMAIL_NOT_VERIFIED');
    const token = await tokenFromMail('ana@example.com', /verify/i, before);
    const verified = await fleet.fetch('/api/auth/verify-email', json({ token }));
    expect(verified.status).toBe(200);

    const res = await fleet.fetch('/api/auth/login/local', json({ email: 'ana@example.com', password: PASSWORD }));
    expect(res.status).toBe(200);
    const loginBody = (await res.json()) as { accessToken: string; user: { username: string } };
    expect(Object.keys(loginBody).sort()).toEqual(['accessToken', 'expiresIn', 'tokenType', 'user']);
    expect(loginBody.user.username).toBe(username);
    // AUTH-1 also sets the knownDevice cookie (services/identity/README.md, "Abuse policy").
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('refreshToken='))!;
    expect(setCookie).toMatch(/^refreshToken=[\w-]+; Max-Age=2592000; Path=\/api\/auth; HttpOnly; SameSite=Lax$/);
    const oldCookie = setCookie.split(';')[0]!;
    expect((await fleet.fetch('/api/users/me', { headers: bearer(loginBody.accessToken) })).status).toBe(200);

    const rotated = await fleet.fetch('/api/auth/refreshtoken', { method: 'POST', headers: { cookie: oldCookie } });
    expect(rotated.status).toBe(200);
    const newCookie = rotated.headers.get('set-cookie')!.split(';')[0]!;
    expect(newCookie).not.toBe(oldCookie);
    const family = ((await rotated.json()) as { accessToken: string }).accessToken;
    expect((await fleet.fetch('/api/users/me', { headers: bearer(family) })).status).toBe(200);

    const reused = await fleet.fetch('/api/auth/refreshtoken', { method: 'POST', headers: { cookie: oldCookie } });
    expect(reused.status).toBe(401);
    expect(((await reused.json()) as { code: string }).code).toBe('REFRESH_TOKEN_REUSED');
    await refusedWithin1s(family, 401, 'UNAUTHORIZED');
    await refusedWithin1s(loginBody.accessToken, 401, 'UNAUTHORIZED');
    expect((await fleet.fetch('/api/auth/refreshtoken', { method: 'POST', headers: { cookie: newCookie } })).status).toBe(401);
  });

  it('AUTH-4 logout-all cuts every device at once', async () => {
    await verifiedUser('ben@example.com', 'Ben');
    const phone = await login('ben@example.com');
    const laptop = await login('ben@example.com');
    const res = await fleet.fetch('/api/auth/logout-all', { method: 'POST', headers: bearer(phone.accessToken) });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
    await refusedWithin1s(phone.accessToken, 401, 'UNAUTHORIZED');
    await refusedWithin1s(laptop.accessToken, 401, 'UNAUTHORIZED');
    expect((await fleet.fetch('/api/auth/refreshtoken', json({ refreshToken: laptop.refreshToken }))).status).toBe(401);
  });
});

describe('SEC-4 change logged-in user password', () => {
  it('wrong current password → 403 INVALID_CURRENT_PASSWORD; right one → 200 {message} and other sessions cut', async () => {
    await verifiedUser('cleo@example.com', 'Cleo');
    const mine = await login('cleo@example.com');
    const other = await login('cleo@example.com');
    const change = (currentPassword: string) =>
      fleet.fetch('/api/users/me/reset-password', {
        method: 'PATCH',
        headers: { ...bearer(mine.accessToken), 'content-type': 'application/json' },
        body: JSON.stringify({ currentPassword, newPassword: 'another long secret' }),
      });
    const wrong = await change('not my password');
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { code: string }).code).toBe('INVALID_CURRENT_PASSWORD');
    const ok = await change(PASSWORD);
    expect(ok.status).toBe(200);
    expect(Object.keys((await ok.json()) as object)).toEqual(['message']);
    await refusedWithin1s(other.accessToken, 401, 'UNAUTHORIZED');
    expect((await fleet.fetch('/api/users/me', { headers: bearer(mine.accessToken) })).status).toBe(200);
    await login('cleo@example.com', 'another long secret');
  });
});

describe('USR-15 public profile by username', () => {
  it('returns exactly the Public profile fields for anonymous and signed-in callers; unknown → 404', async () => {
    const dan = await verifiedUser('dan@example.com', 'Dan Beats');
    await verifiedUser('eli@example.com', 'Eli');
    const viewer = await login('eli@example.com');
    const keys = [
      'displayName',
      'id',
      'isBlocked',
      'isFollowed',
      'isFollowing',
      'privacySettings',
      'profile',
      'profileUrl',
      'socialLinks',
      'stats',
      'tier',
      'username',
    ];
    for (const headers of [{}, bearer(viewer.accessToken)]) {
      const res = await fleet.fetch(`/api/users/username/${dan.username}`, { headers });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(keys);
      expect(PublicProfileSchema.strict().safeParse(body).success).toBe(true);
      expect(body).toMatchObject({
        id: dan.userId,
        username: 'dan-beats',
        displayName: 'Dan Beats',
        tier: 'FREE',
        isFollowing: false,
        isFollowed: false,
        isBlocked: false,
        stats: { followersCount: 0, followingCount: 0, trackCount: 0 },
      });
      expect(Object.keys(body.profile as object)).toEqual(expect.arrayContaining(['bio', 'city', 'country', 'avatarUrl', 'coverPhotoUrl', 'favoriteGenres']));
      expect(Object.keys(body.socialLinks as object).sort()).toEqual(['instagram', 'supportLink', 'twitter', 'website']);
    }
    const missing = await fleet.fetch('/api/users/username/no-such-user');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, code: 'USER_NOT_FOUND', path: '/api/users/username/no-such-user' });
  });
});

describe('AUTH-13 and AUTH-12 identity-provider login against a local JWKS', () => {
  const sign = (claims: Record<string, unknown>, options?: Parameters<TestJwks['sign']>[1]) =>
    google.sign({ iss: google.issuer, aud: GOOGLE_CLIENT, email_verified: true, ...claims }, options);

  it('logs in with a test-signed ID token (AUTH-13 and AUTH-12)', async () => {
    const idToken = await sign({ sub: 'google-1', email: 'gabi@gmail.example', name: 'Gabi' });
    const res = await fleet.fetch(
      '/api/auth/login/google',
      json({ accessToken: 'provider-access', idToken, deviceInfo: { deviceType: 'DESKTOP', fingerPrint: 'fp-1', deviceName: 'Desk' } }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { accessToken: string; user: { isNewUser: boolean; id: number } };
    expect(body.user.isNewUser).toBe(true);
    expect(res.headers.get('set-cookie')).toMatch(/^refreshToken=/);
    expect((await fleet.fetch('/api/users/me', { headers: bearer(body.accessToken) })).status).toBe(200);
    const exchanged = await fleet.fetch('/api/auth/oauth/google', json({ authTokenDto: idToken }));
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { user: { id: number; isNewUser: boolean } }).user).toEqual(
      expect.objectContaining({ id: body.user.id, isNewUser: false }),
    );
  });

  it('refuses a wrong audience, an expired token and a foreign key', async () => {
    const tokens = [
      await google.sign({ iss: google.issuer, aud: 'another-app', sub: 'google-2', email: 'x@gmail.example', email_verified: true }),
      await sign({ sub: 'google-2', email: 'x@gmail.example' }, { expiresIn: Math.floor(Date.now() / 1000) - 120 }),
      await sign({ sub: 'google-2', email: 'x@gmail.example' }, { signWithForeignKey: true }),
    ];
    for (const idToken of tokens) {
      for (const [path, body] of [
        ['/api/auth/login/google', { accessToken: 'a', idToken }],
        ['/api/auth/oauth/google', { authTokenDto: idToken }],
      ] as const) {
        const res = await fleet.fetch(path, json(body));
        expect(res.status, path).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe('INVALID_IDP_TOKEN');
      }
    }
  });
});

describe('AUTH-7 and AUTH-8 answer alike for known and unknown e-mails', () => {
  it('same status and body', async () => {
    await register('fay@example.com', 'Fay');
    await verifiedUser('gus@example.com', 'Gus');
    for (const [path, known] of [
      ['/api/auth/resend-verification', 'fay@example.com'],
      ['/api/auth/forgot-password', 'gus@example.com'],
    ] as const) {
      const a = await fleet.fetch(path, json({ email: known }));
      const b = await fleet.fetch(path, json({ email: `unknown-${randomUUID()}@example.com` }));
      expect(a.status, path).toBe(200);
      expect(b.status).toBe(a.status);
      expect(await b.json()).toEqual(await a.json());
    }
  });
});

describe('MOD-8 ban through the gateway', () => {
  it("a banned user's existing tokens get 403 ACCOUNT_BANNED at once and login is refused", async () => {
    const { userId } = await verifiedUser('hal@example.com', 'Hal');
    const session = await login('hal@example.com');
    const adminRes = await fleet.fetch('/api/admin/login', json({ email: 'admin@example.com', password: 'admin password 1' }));
    const admin = (await adminRes.json()) as { accessToken: string };
    const ban = await fleet.fetch(`/api/admin/users/${userId}/ban`, {
      method: 'PATCH',
      headers: { ...bearer(admin.accessToken), 'content-type': 'application/json' },
      body: JSON.stringify({ isBanned: true, reason: 'spam' }),
    });
    expect(ban.status).toBe(200);
    await refusedWithin1s(session.accessToken, 403, 'ACCOUNT_BANNED');
    const again = await fleet.fetch('/api/auth/login/local', json({ email: 'hal@example.com', password: PASSWORD }));
    expect(again.status).toBe(403);
    expect(((await again.json()) as { code: string }).code).toBe('ACCOUNT_BANNED');
    expect((await fleet.fetch('/api/auth/refreshtoken', json({ refreshToken: session.refreshToken }))).status).not.toBe(200);
    const listed = await fleet.fetch('/api/admin/users/banned', { headers: bearer(admin.accessToken) });
    expect(((await listed.json()) as { content: Array<{ id: number }> }).content.map((u) => u.id)).toContain(userId);
  });
});

describe('AUTH-* / SEC-* / USR-* / MOD-1 / MOD-8 bad input on every identity route', () => {
  it('answers 400 ErrorResponse with the failing fields, never 500, and stores nothing', async () => {
    await verifiedUser('ivo@example.com', 'Ivo');
    const ivo = await login('ivo@example.com');
    const auth = bearer(ivo.accessToken);
    const huge = 'x'.repeat(1_000_000);
    const nasty = ["'; DROP TABLE users; --", '<script>alert(1)</script>', '\u0000\u202e\ud83d\ude00', huge];
    const routes: Array<[string, string, Record<string, unknown>, string, Record<string, string>?]> = [
      ['POST', '/api/auth/login/local', { email: 1, password: [] }, 'email'],
      ['POST', '/api/auth/refreshtoken', { refreshToken: 12 }, 'refreshToken'],
      ['POST', '/api/auth/logout', { refreshToken: {} }, 'refreshToken'],
      ['POST', '/api/auth/register/local', { email: 'a@b.example', displayName: '', password: 'long enough pw', dateOfBirth: '1990-01-01' }, 'displayName'],
      ['POST', '/api/auth/verify-email', { token: 5 }, 'token'],
      ['POST', '/api/auth/resend-verification', { email: 'nope' }, 'email'],
      ['POST', '/api/auth/forgot-password', {}, 'email'],
      ['POST', '/api/auth/reset-password', { token: 'x' }, 'newPassword'],
      ['POST', '/api/auth/oauth/google', { authTokenDto: false }, 'authTokenDto'],
      ['POST', '/api/auth/login/google', { accessToken: 'a' }, 'idToken'],
      ['POST', '/api/auth/register/google', { idToken: 1 }, 'idToken'],
      ['POST', '/api/auth/check-user', { email: 7 }, 'email'],
      ['POST', '/api/admin/login', { email: 'x' }, 'email'],
      ['PATCH', '/api/users/me/email', { newEmail: 'bad' }, 'newEmail', auth],
      ['POST', '/api/users/me/add-new-email', {}, 'newEmail', auth],
      ['POST', '/api/users/me/update-email-primary', { newEmail: 3 }, 'newEmail', auth],
      ['PATCH', '/api/users/me/reset-password', { currentPassword: PASSWORD }, 'newPassword', auth],
      ['PATCH', '/api/users/me', { displayName: 5 }, 'displayName', auth],
      ['PATCH', '/api/users/me/privacy', { isPrivate: 'maybe' }, 'isPrivate', auth],
      ['PATCH', '/api/users/me/tier', { newTier: 'GOLD' }, 'newTier', auth],
      ['PATCH', '/api/users/me/role', { newRole: 'ADMIN' }, 'newRole', auth],
      ['PATCH', '/api/users/me/permalink', {}, 'permalink', auth],
      ['PATCH', '/api/users/me/social-links', { website: 'not a url' }, 'website', auth],
      ['PATCH', '/api/users/me/email/start', { newEmail: null }, 'newEmail', auth],
      ['POST', '/api/users/me/email/verify', { token: [] }, 'token'],
    ];
    const identity = fleet.apps.get('identity') as unknown as {
      infra: { prisma: { user: { count(): Promise<number> }; userEmail: { count(): Promise<number> } } };
    };
    const users = await identity.infra.prisma.user.count();
    const emails = await identity.infra.prisma.userEmail.count();
    for (const [method, path, body, field, headers = {}] of routes) {
      const res = await fleet.fetch(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const payload = (await res.json()) as { code: string; errors?: Array<{ field: string }>; path: string };
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(payload.code).toBe('VALIDATION_FAILED');
      expect(
        payload.errors?.map((e) => e.field),
        path,
      ).toContain(field);
      const malformed = await fleet.fetch(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: '{"email":' });
      expect(malformed.status, `${path} malformed`).toBe(400);
      expect(((await malformed.json()) as { code: string }).code).toBe('MALFORMED_REQUEST');
    }
    for (const value of nasty) {
      // A 1 MB string goes in one field (five of them would pass the gateway's 1 MB body limit: 413).
      const body =
        value === huge
          ? { email: 'big@example.com', displayName: value, password: PASSWORD, dateOfBirth: '1990-01-01' }
          : { email: value, displayName: value, password: value, dateOfBirth: value, username: value };
      const res = await fleet.fetch('/api/auth/register/local', json(body));
      expect(res.status).toBe(400);
      const payload = (await res.json()) as { errors: Array<{ field: string }> };
      expect(payload.errors.map((e) => e.field)).toEqual(expect.arrayContaining(value === huge ? ['displayName'] : ['email', 'dateOfBirth']));
      const profile = await fleet.fetch(`/api/users/username/${encodeURIComponent(value.slice(0, 200))}`);
      expect([400, 404]).toContain(profile.status);
      const update = await fleet.fetch('/api/users/me', {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ bio: value.slice(0, 600) }),
      });
      expect([200, 400]).toContain(update.status);
    }
    expect((await fleet.fetch('/api/users/1.5')).status).toBe(400);
    expect((await fleet.fetch('/api/admin/users/abc/ban', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect(await identity.infra.prisma.user.count()).toBe(users);
    expect(await identity.infra.prisma.userEmail.count()).toBe(emails);
  });
});

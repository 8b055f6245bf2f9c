import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_KEYS } from '@msp/contracts';
import { generateHOTP } from '@oslojs/otp';
import { waitFor } from '@msp/testing';
import { decodeTotpSecret } from '../src/modules/mfa/mfa.crypto.js';
import { buildApp, loadIdentityConfig } from '../src/app.js';
import { callerHeaders, login, PASSWORD, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;
let admin: Record<string, string>;

beforeAll(async () => {
  h = await startIdentity('identity_account_deletion', {
    ADMIN_ACCOUNTS: JSON.stringify([{ email: 'root@example.com', username: 'root', displayName: 'Root', password: 'root secret pass' }]),
    ACCOUNT_DELETION_GRACE: '3s',
    ACCOUNT_DELETION_POLL_MS: '200',
  });
  const res = await h.app.inject({ method: 'POST', url: '/api/admin/login', payload: { email: 'root@example.com', password: 'root secret pass' } });
  admin = callerHeaders(res.json().accessToken);
});

afterAll(async () => {
  await h?.close();
});

const del = (headers: Record<string, string>, payload?: unknown) =>
  h.app.inject({ method: 'DELETE', url: '/api/users/me', headers, payload: payload as object });
const restore = (email: string, password = PASSWORD) => h.app.inject({ method: 'POST', url: '/api/users/me/restore', payload: { email, password } });
const outboxTypes = async (userId: number) =>
  (await h.app.infra.prisma.outboxEvent.findMany({ orderBy: { seq: 'asc' }, select: { type: true, payload: true } }))
    .filter((e) => (e.payload as { data?: { userId?: number } }).data?.userId === userId)
    .map((e) => e.type);

describe('ACC-3 delete my account', () => {
  it('locks the account at once, refuses login and refresh, hides the profile, and announces the deletion', async () => {
    const u = await verifiedUser(h, 'dora@example.com', 'Dora');
    const before = Date.now();
    const res = await del(u.headers, { password: PASSWORD });
    expect(res.statusCode).toBe(202);
    const { deleteAt } = res.json() as { deleteAt: string };
    expect(Date.parse(deleteAt) - before).toBeGreaterThanOrEqual(2500);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBe('deleted');
    const sessions = await h.app.infra.prisma.session.findMany({ where: { userId: u.userId }, select: { revokedAt: true, revokeReason: true } });
    expect(sessions.every((s) => s.revokedAt !== null && s.revokeReason === 'account-deleted')).toBe(true);

    const again = await h.app.inject({ method: 'POST', url: '/api/auth/login/local', payload: { email: 'dora@example.com', password: PASSWORD } });
    expect(again.statusCode).toBe(403);
    expect(again.json().code).toBe('ACCOUNT_PENDING_DELETION');
    const refresh = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: u.refreshToken } });
    expect(refresh.statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: `/api/users/${u.userId}` })).statusCode).toBe(404);
    expect(await outboxTypes(u.userId)).toContain('identity.user.deletion-scheduled.v1');

    // Restored inside the grace so the worker leaves it (the grace test below uses its own user).
    expect((await restore('dora@example.com')).statusCode).toBe(200);
  });

  it('refuses a wrong password (403), a missing or garbled body (400), and other fields (400)', async () => {
    const u = await verifiedUser(h, 'eve@example.com', 'Eve');
    const wrong = await del(u.headers, { password: 'not the password' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('INVALID_CURRENT_PASSWORD');
    expect((await del(u.headers, {})).json().code).toBe('VALIDATION_FAILED');
    expect((await del(u.headers, { password: 42 })).statusCode).toBe(400);
    expect((await del(u.headers, { password: PASSWORD, extra: true })).statusCode).toBe(400);
    const garbled = await h.app.inject({
      method: 'DELETE',
      url: '/api/users/me',
      headers: { ...u.headers, 'content-type': 'application/json' },
      payload: '{"password":',
    });
    expect(garbled.statusCode).toBe(400);
    expect((await del({}, { password: PASSWORD })).statusCode).toBe(401);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBeNull();
  });
});

describe('ACC-3 delete my account without a password', () => {
  it('takes a recovery code of the second factor; refuses a wrong one, and an account with no factor at all', async () => {
    const u = await verifiedUser(h, 'lea@example.com', 'Lea');
    const enrol = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp', headers: u.headers });
    const secret = decodeTotpSecret(enrol.json().secret as string);
    const code = generateHOTP(secret, BigInt(Math.floor(Date.now() / 30_000)), 6);
    const confirm = await h.app.inject({ method: 'POST', url: '/api/users/me/mfa/totp/confirm', headers: u.headers, payload: { code } });
    expect(confirm.statusCode).toBe(200);
    const [recoveryCode] = confirm.json().recoveryCodes as string[];
    // As an account signed up with Google: no password.
    await h.app.infra.prisma.user.update({ where: { id: u.userId }, data: { passwordHash: null } });
    expect((await del(u.headers, { password: PASSWORD })).json().code).toBe('VALIDATION_FAILED');
    expect((await del(u.headers, { recoveryCode: 'not-a-code' })).json().code).toBe('INVALID_MFA_CODE');
    expect((await del(u.headers, { recoveryCode })).statusCode).toBe(202);

    const bare = await verifiedUser(h, 'max@example.com', 'Max');
    await h.app.infra.prisma.user.update({ where: { id: bare.userId }, data: { passwordHash: null } });
    expect((await del(bare.headers, { code: '123456' })).json().code).toBe('FORBIDDEN');
  });
});

describe('ACC-4 restore my account', () => {
  it('restores inside the grace: lock lifted, old tokens stay dead, login works again, the cancellation is announced', async () => {
    const u = await verifiedUser(h, 'fay@example.com', 'Fay');
    expect((await del(u.headers, { password: PASSWORD })).statusCode).toBe(202);
    expect((await restore('fay@example.com', 'wrong password')).json().code).toBe('INVALID_CREDENTIALS');
    const ok = await restore('fay@example.com');
    expect(ok.statusCode).toBe(200);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBeNull();
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(u.headers['x-session-id']!))).toBe('1');
    await login(h, 'fay@example.com');
    expect((await h.app.inject({ method: 'GET', url: `/api/users/${u.userId}` })).statusCode).toBe(200);
    expect(await outboxTypes(u.userId)).toEqual(expect.arrayContaining(['identity.user.deletion-scheduled.v1', 'identity.user.deletion-cancelled.v1']));
    // Nothing pending any more: 404.
    expect((await restore('fay@example.com')).json().code).toBe('RESOURCE_NOT_FOUND');
    expect((await h.app.inject({ method: 'POST', url: '/api/users/me/restore', payload: { email: 'fay@example.com' } })).statusCode).toBe(400);
  });

  it('keeps a ban: a banned account restored stays banned', async () => {
    const u = await verifiedUser(h, 'gus@example.com', 'Gus');
    expect((await del(u.headers, { password: PASSWORD })).statusCode).toBe(202);
    expect((await h.app.inject({ method: 'PATCH', url: `/api/admin/users/${u.userId}/ban`, payload: { isBanned: true }, headers: admin })).statusCode).toBe(
      200,
    );
    expect((await restore('gus@example.com')).statusCode).toBe(200);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBe('banned');
  });
});

describe('ACC-3 grace worker', () => {
  it('removes the account and its files when the grace has passed; restore after it is refused', async () => {
    const u = await verifiedUser(h, 'hal@example.com', 'Hal');
    const key = `images/users/${u.userId}/avatar-test.jpg`;
    await h.app.infra.storage.put(key, Buffer.from('jpeg'), 'image/jpeg');
    expect((await del(u.headers, { password: PASSWORD })).statusCode).toBe(202);
    await waitFor(async () => (await h.app.infra.prisma.user.findUnique({ where: { id: u.userId } })) === null, {
      timeoutMs: 15_000,
      message: 'account not removed after the grace',
    });
    expect(await h.app.infra.storage.list(`images/users/${u.userId}/`)).toEqual([]);
    const prisma = h.app.infra.prisma;
    expect(await prisma.session.count({ where: { userId: u.userId } })).toBe(0);
    expect(await prisma.userEmail.count({ where: { email: 'hal@example.com' } })).toBe(0);
    expect(await prisma.oneTimeToken.count({ where: { userId: u.userId } })).toBe(0);
    expect(await prisma.mailOutbox.count({ where: { recipient: 'hal@example.com' } })).toBe(0);
    expect((await outboxTypes(u.userId)).filter((t) => t === 'identity.user.deleted.v1')).toHaveLength(1);
    // After the grace nothing of the account is left: the login answer is the unknown address's.
    expect((await restore('hal@example.com')).json().code).toBe('INVALID_CREDENTIALS');
  });
});

describe('ACC-5 delete a user (admin)', () => {
  it('removes the account at once, with its apps; a second deletion is 404', async () => {
    const u = await verifiedUser(h, 'ivy@example.com', 'Ivy');
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: u.headers,
      payload: { name: 'Ivy app', redirectUris: ['https://ivy.example.com/cb'], confidential: false },
    });
    expect(created.statusCode).toBe(201);
    // An outbox longer than one statement of the pass (OUTBOX_SCAN rows): published events naming
    // the account among others' (kept), found by the keyset pass across several statements.
    await h.app.infra.prisma.$executeRawUnsafe(
      `INSERT INTO outbox_event (id, type, payload, published_at)
       SELECT gen_random_uuid(), 'identity.user.updated.v1', jsonb_build_object('data', jsonb_build_object('userId', CASE WHEN g % 3 = 0 THEN $1 ELSE -g END)), now()
         FROM generate_series(1, 4500) g`,
      u.userId,
    );
    const res = await h.app.inject({ method: 'DELETE', url: `/api/admin/users/${u.userId}`, headers: admin });
    expect(res.statusCode).toBe(202);
    expect(Date.parse(res.json().deleteAt)).toBeLessThanOrEqual(Date.now());
    await waitFor(async () => (await h.app.infra.prisma.user.findUnique({ where: { id: u.userId } })) === null, { timeoutMs: 10_000, message: 'not removed' });
    expect(await h.app.infra.prisma.oAuthApp.count({ where: { ownerId: u.userId } })).toBe(0);
    expect((await h.app.inject({ method: 'DELETE', url: `/api/admin/users/${u.userId}`, headers: admin })).json().code).toBe('USER_NOT_FOUND');
    // The published events about the account (their snapshots carry the username) go with it: UserDeleted alone is left.
    expect(await outboxTypes(u.userId)).toEqual(['identity.user.deleted.v1']);
    expect(await h.app.infra.prisma.$queryRawUnsafe(`SELECT count(*)::int AS n FROM outbox_event WHERE (payload->'data'->>'userId')::int < 0`)).toEqual([
      { n: 3000 },
    ]);
  });

  it('refuses admin targets (403), unknown users (404), non-admin callers (403) and bad ids (400)', async () => {
    const u = await verifiedUser(h, 'jon@example.com', 'Jon');
    expect((await h.app.inject({ method: 'DELETE', url: `/api/admin/users/${admin['x-user-id']}`, headers: admin })).json().code).toBe('FORBIDDEN');
    expect((await h.app.inject({ method: 'DELETE', url: '/api/admin/users/999999', headers: admin })).json().code).toBe('USER_NOT_FOUND');
    expect((await h.app.inject({ method: 'DELETE', url: `/api/admin/users/${u.userId}`, headers: u.headers })).json().code).toBe('FORBIDDEN');
    expect((await h.app.inject({ method: 'DELETE', url: '/api/admin/users/abc', headers: admin })).statusCode).toBe(400);
    expect(await h.app.infra.prisma.user.count({ where: { id: u.userId } })).toBe(1);
  });
});

describe('ACC-3 grace worker restart-safety', () => {
  it('a deletion whose grace ends while identity is down is carried out by the next process', async () => {
    const h2 = await startIdentity('identity_account_deletion_restart', { ACCOUNT_DELETION_GRACE: '2s', ACCOUNT_DELETION_POLL_MS: '200' });
    try {
      const u = await verifiedUser(h2, 'kim@example.com', 'Kim');
      const res = await h2.app.inject({ method: 'DELETE', url: '/api/users/me', headers: u.headers, payload: { password: PASSWORD } });
      expect(res.statusCode).toBe(202);
      await h2.app.close();
      // Nobody runs the worker past the grace: the account is still there, only its row knows it is due.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const config = {
        ...h2.env.env,
        ACCOUNT_DELETION_GRACE: '2s',
        ACCOUNT_DELETION_POLL_MS: '200',
        SMTP_URL: h2.mail.url,
        SOCIAL_URL: 'http://127.0.0.1:9',
        BILLING_URL: 'http://127.0.0.1:9',
      };
      const next = await buildApp(loadIdentityConfig(config), { logger: false });
      await next.ready();
      try {
        await waitFor(async () => (await next.infra.prisma.user.findUnique({ where: { id: u.userId } })) === null, {
          timeoutMs: 15_000,
          message: 'not removed after restart',
        });
        const types = (await next.infra.prisma.outboxEvent.findMany({ select: { type: true, payload: true } }))
          .filter((e) => (e.payload as { data?: { userId?: number } }).data?.userId === u.userId)
          .map((e) => e.type);
        expect(types.filter((t) => t === 'identity.user.deleted.v1')).toHaveLength(1);
      } finally {
        await next.close();
      }
    } finally {
      await Promise.allSettled([h2.env.close(), h2.mail.close()]);
    }
  });
});

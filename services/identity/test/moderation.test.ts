import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_KEYS } from '@msp/contracts';
import { callerHeaders, login, startIdentity, verifiedUser, type Harness } from './helpers.js';

let h: Harness;
let admin: Record<string, string>;

beforeAll(async () => {
  h = await startIdentity('identity_moderation', {
    ADMIN_ACCOUNTS: JSON.stringify([{ email: 'mod@example.com', username: 'moderator', displayName: 'The Mod', password: 'moderator secret' }]),
  });
  const res = await h.app.inject({ method: 'POST', url: '/api/admin/login', payload: { email: 'mod@example.com', password: 'moderator secret' } });
  admin = callerHeaders(res.json().accessToken);
});

afterAll(async () => {
  await h?.close();
});

const patch = (url: string, payload: object, headers = admin) => h.app.inject({ method: 'PATCH', url, payload, headers });

describe('MOD-8 ban a user', () => {
  it('locks the account in Redis, revokes its sessions, refuses login and refresh, hides the profile; unban restores', async () => {
    const u = await verifiedUser(h, 'bob@example.com', 'Bob');
    const res = await patch(`/api/admin/users/${u.userId}/ban`, { isBanned: true, reason: 'spam' });
    expect(res.statusCode).toBe(200);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBe('banned');
    // No revoked-session key: the gateway must answer the ban's 403, not a 401.
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(u.headers['x-session-id']!))).toBeNull();
    expect(
      (
        await h.app.inject({ method: 'POST', url: '/api/auth/login/local', payload: { email: 'bob@example.com', password: 'correct horse battery staple' } })
      ).json().code,
    ).toBe('ACCOUNT_BANNED');
    expect((await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: u.refreshToken } })).statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: `/api/users/${u.userId}` })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: `/api/users/${u.userId}`, headers: admin })).statusCode).toBe(200);

    const list = await h.app.inject({ method: 'GET', url: '/api/admin/users/banned?page=0&size=10', headers: admin });
    expect(list.json()).toMatchObject({
      totalElements: 1,
      content: [{ id: u.userId, isBanned: true, banReason: 'spam', bannedAt: expect.any(String), suspendedUntil: null, isFollowing: false }],
    });

    expect((await patch(`/api/admin/users/${u.userId}/ban`, { isBanned: false })).statusCode).toBe(200);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBeNull();
    // Sessions stay revoked: the old access token's session is now refused by key.
    expect(await h.app.redis.get(REVOCATION_KEYS.revokedSession(u.headers['x-session-id']!))).toBe('1');
    await login(h, 'bob@example.com');
    const types = (await h.app.infra.prisma.outboxEvent.findMany({ select: { type: true } })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['identity.user.banned.v1', 'identity.user.unbanned.v1']));
  });

  it('refuses admins as targets (403 FORBIDDEN), unknown users (404) and non-admin callers (403)', async () => {
    const u = await verifiedUser(h, 'carl@example.com', 'Carl');
    expect((await patch(`/api/admin/users/${admin['x-user-id']}/ban`, { isBanned: true })).json().code).toBe('FORBIDDEN');
    expect((await patch('/api/admin/users/99999/ban', { isBanned: true })).json().code).toBe('USER_NOT_FOUND');
    expect((await patch(`/api/admin/users/${u.userId}/ban`, { isBanned: true }, u.headers)).json().code).toBe('FORBIDDEN');
    expect((await patch('/api/admin/users/abc/ban', { isBanned: true })).statusCode).toBe(400);
    expect((await patch(`/api/admin/users/${u.userId}/ban`, { isBanned: 'yes' })).json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'isBanned' }],
    });
  });
});

describe('MOD-9 suspend a user', () => {
  it('suspends until the given day, answers ACCOUNT_SUSPENDED on login, and 0 days lifts it', async () => {
    const u = await verifiedUser(h, 'dora@example.com', 'Dora');
    const res = await patch(`/api/admin/users/${u.userId}/suspend`, { durationDays: 3, reason: 'cool down' });
    expect(res.statusCode).toBe(200);
    const until = Date.parse(res.json().suspendedUntil);
    expect(until - Date.now()).toBeGreaterThan(2.9 * 86_400_000);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBe(`suspended:${res.json().suspendedUntil}`);
    expect(
      (
        await h.app.inject({ method: 'POST', url: '/api/auth/login/local', payload: { email: 'dora@example.com', password: 'correct horse battery staple' } })
      ).json().code,
    ).toBe('ACCOUNT_SUSPENDED');
    // Content stays visible while suspended.
    expect((await h.app.inject({ method: 'GET', url: `/api/users/${u.userId}` })).statusCode).toBe(200);
    expect((await patch(`/api/admin/users/${u.userId}/suspend`, { durationDays: 366 })).statusCode).toBe(400);
    const lifted = await patch(`/api/admin/users/${u.userId}/suspend`, { durationDays: 0 });
    expect(lifted.json()).toEqual({ message: expect.any(String), suspendedUntil: null });
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBeNull();
  });
});

describe('MOD-8 revocation re-sync', () => {
  it('re-writes bans from the database after Redis lost them', async () => {
    const u = await verifiedUser(h, 'eve@example.com', 'Eve');
    await patch(`/api/admin/users/${u.userId}/ban`, { isBanned: true });
    await h.app.redis.del(REVOCATION_KEYS.userStatus(u.userId));
    // The app's own sync runs every minute; trigger it through the same code path.
    await h.app.moderation.syncRevocations(1800);
    expect(await h.app.redis.get(REVOCATION_KEYS.userStatus(u.userId))).toBe('banned');
  });
});

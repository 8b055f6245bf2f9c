import { describe, expect, it } from 'vitest';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { NewSession, SessionSelector, SessionsStore } from './sessions.repository.js';
import { assertNotLocked, SessionsService } from './sessions.service.js';

const config = {
  WEB_BASE_URL: 'https://web.test',
  S3_ENDPOINT: 'https://s3.test',
  S3_BUCKET: 'media',
  ACCESS_TOKEN_TTL_SECONDS: 900,
  REFRESH_TOKEN_TTL_SECONDS: 86_400,
  JWT_ISSUER: 'msp-identity',
} as IdentityConfig;
const client = { ip: '203.0.113.1', userAgent: 'vitest' };

const user = (overrides: Partial<TokenUser> = {}): TokenUser => ({
  id: 7,
  email: 'ann@example.com',
  username: 'ann',
  displayName: 'Ann',
  role: 'LISTENER',
  tier: 'FREE',
  avatarKey: null,
  passwordHash: 'hash',
  emailVerified: true,
  isBanned: false,
  suspendedUntil: null,
  deleteAt: null,
  ...overrides,
});

interface Session extends NewSession {
  revokedAt: Date | null;
}
interface Refresh {
  id: number;
  sessionId: string;
  expiresAt: Date;
  rotatedAt: Date | null;
}

/** Sessions and refresh tokens in memory (by token value); revoked-session keys in `revokedKeys`. */
function setup(users: TokenUser[] = [user()], opts: { redisDown?: boolean } = {}) {
  const sessions = new Map<string, Session>();
  const tokens = new Map<string, Refresh>();
  const revokedKeys: string[] = [];
  const signed: Array<{ sid: string; tier: string }> = [];
  let nextId = 1;
  const select = (s: SessionSelector) => [...sessions.values()].filter((x) => ('id' in s ? x.id === s.id : x.userId === s.userId && x.id !== s.exceptId));
  const repo: SessionsStore = {
    findTokenUser: (id) => Promise.resolve(users.find((u) => u.id === id) ?? null),
    create: (session, refresh) => {
      sessions.set(session.id, { ...session, revokedAt: null });
      if (refresh) tokens.set(refresh.token, { id: nextId++, sessionId: session.id, expiresAt: refresh.expiresAt, rotatedAt: null });
      return Promise.resolve();
    },
    findRefreshToken: (token) => {
      const row = tokens.get(token);
      const session = row && sessions.get(row.sessionId);
      return Promise.resolve(row && session ? { ...row, session: { userId: session.userId, revokedAt: session.revokedAt } } : null);
    },
    rotate: (current, next, now) => {
      const row = [...tokens.values()].find((t) => t.id === current.id);
      if (!row || row.rotatedAt) return Promise.resolve(false);
      row.rotatedAt = now;
      tokens.set(next.token, { id: nextId++, sessionId: current.sessionId, expiresAt: next.expiresAt, rotatedAt: null });
      return Promise.resolve(true);
    },
    replaceFamily: (sessionId, next, now) => {
      for (const t of tokens.values()) if (t.sessionId === sessionId) t.rotatedAt ??= now;
      tokens.set(next.token, { id: nextId++, sessionId, expiresAt: next.expiresAt, rotatedAt: null });
      return Promise.resolve();
    },
    findSession: (id) => Promise.resolve(sessions.get(id) ?? null),
    sessionOfRefreshToken: (token) => Promise.resolve(tokens.get(token)?.sessionId ?? null),
    revoke: (selector, _reason, now) => {
      const fresh = select(selector).filter((s) => !s.revokedAt);
      fresh.forEach((s) => (s.revokedAt = now));
      return Promise.resolve(fresh.map((s) => s.id));
    },
    revokeAllOfUser: (userId, _reason, now) => {
      select({ userId }).forEach((s) => (s.revokedAt ??= now));
      return Promise.resolve();
    },
    revokedSince: (userId, since) =>
      Promise.resolve(
        select({ userId })
          .filter((s) => s.revokedAt && s.revokedAt >= since)
          .map((s) => s.id),
      ),
  };
  const keys = {
    sign: (claims: { sid: string; tier: string }) => {
      signed.push({ sid: claims.sid, tier: claims.tier });
      return Promise.resolve(`token-${signed.length}`);
    },
  };
  const revocation = {
    revokeSessions: (ids: string[]) => {
      if (opts.redisDown) return Promise.reject(new Error('ECONNREFUSED'));
      revokedKeys.push(...ids);
      return Promise.resolve();
    },
  };
  const service = new SessionsService(repo, keys, revocation, config, new Links(config));
  return { service, sessions, revokedKeys, signed, users };
}

describe('R14 / ACC-3 locked accounts get no tokens', () => {
  it('answers ACCOUNT_BANNED, then ACCOUNT_PENDING_DELETION, then ACCOUNT_SUSPENDED while it runs', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const later = new Date(now.getTime() + 1000);
    expect(() => assertNotLocked({ isBanned: true, suspendedUntil: later, deleteAt: later }, now)).toThrow(expect.objectContaining({ code: 'ACCOUNT_BANNED' }));
    expect(() => assertNotLocked({ isBanned: false, suspendedUntil: later, deleteAt: later }, now)).toThrow(
      expect.objectContaining({ code: 'ACCOUNT_PENDING_DELETION' }),
    );
    expect(() => assertNotLocked({ isBanned: false, suspendedUntil: later }, now)).toThrow(expect.objectContaining({ code: 'ACCOUNT_SUSPENDED' }));
    expect(() => assertNotLocked({ isBanned: false, suspendedUntil: now }, now)).not.toThrow();
  });
});

describe('AUTH-1 session start', () => {
  it('opens a session with a refresh token and answers the LoginResponse', async () => {
    const { service, sessions } = setup();
    const issued = await service.start(user(), client, { refreshable: true, isNewUser: true });
    expect(issued.refreshToken).toEqual(expect.any(String));
    expect(issued.response).toMatchObject({
      accessToken: 'token-1',
      tokenType: 'Bearer',
      expiresIn: 900,
      user: { id: 7, isNewUser: true, profileUrl: 'https://web.test/ann' },
    });
    expect(sessions.get(issued.sessionId)).toMatchObject({ userId: 7, deviceType: 'WEB', fingerPrint: 'vitest', ipAddress: '203.0.113.1' });
    const admin = await service.start(user({ role: 'ADMIN' }), client, { refreshable: false });
    expect(admin.refreshToken).toBeNull();
  });
});

describe('AUTH-2 refresh (token rotation)', () => {
  it('rotates the refresh token and keeps the session id', async () => {
    const { service, signed } = setup();
    const first = await service.start(user(), client, { refreshable: true });
    const next = await service.refresh(first.refreshToken);
    expect(next.sessionId).toBe(first.sessionId);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(signed.map((s) => s.sid)).toEqual([first.sessionId, first.sessionId]);
  });

  it('revokes the whole session with REFRESH_TOKEN_REUSED when a rotated token comes back', async () => {
    const { service, revokedKeys } = setup();
    const first = await service.start(user(), client, { refreshable: true });
    const next = await service.refresh(first.refreshToken);
    await expect(service.refresh(first.refreshToken)).rejects.toMatchObject({ code: 'REFRESH_TOKEN_REUSED' });
    expect(revokedKeys).toEqual([first.sessionId]);
    await expect(service.refresh(next.refreshToken)).rejects.toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
  });

  it('answers INVALID_REFRESH_TOKEN for a missing, unknown or logged-out token', async () => {
    const { service } = setup();
    await expect(service.refresh(null)).rejects.toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
    await expect(service.refresh('nope')).rejects.toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
    const issued = await service.start(user(), client, { refreshable: true });
    await service.logout(issued.refreshToken, null);
    await expect(service.refresh(issued.refreshToken)).rejects.toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
  });

  it('refuses a banned user with ACCOUNT_BANNED', async () => {
    const { service, users } = setup();
    const issued = await service.start(user(), client, { refreshable: true });
    users[0]!.isBanned = true;
    await expect(service.refresh(issued.refreshToken)).rejects.toMatchObject({ code: 'ACCOUNT_BANNED' });
  });
});

describe('AUTH-3 / AUTH-4 logout', () => {
  it("logs out the refresh token's session, else the caller's, writing its revoked-session key", async () => {
    const { service, revokedKeys, sessions } = setup();
    const a = await service.start(user(), client, { refreshable: true });
    const b = await service.start(user(), client, { refreshable: true });
    await service.logout(a.refreshToken, b.sessionId);
    await service.logout(null, b.sessionId);
    await service.logout(null, b.sessionId);
    expect(revokedKeys).toEqual([a.sessionId, b.sessionId, b.sessionId]);
    expect([...sessions.values()].every((s) => s.revokedAt)).toBe(true);
  });

  it('revokes every session but the one kept', async () => {
    const { service, sessions } = setup();
    const a = await service.start(user(), client, { refreshable: true });
    const b = await service.start(user(), client, { refreshable: true });
    await service.revokeAllOf(7, 'password-changed', b.sessionId);
    expect(sessions.get(a.sessionId)?.revokedAt).not.toBeNull();
    expect(sessions.get(b.sessionId)?.revokedAt).toBeNull();
  });

  it('answers SERVICE_UNAVAILABLE with retry-after when the keys cannot be written, the session staying revoked', async () => {
    const { service, sessions } = setup([user()], { redisDown: true });
    const a = await service.start(user(), client, { refreshable: true });
    await expect(service.logout(null, a.sessionId)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
    expect(sessions.get(a.sessionId)?.revokedAt).not.toBeNull();
  });
});

describe('USR-5 reissue', () => {
  it("rotates the caller's session family, or starts a session when it is gone or not the user's", async () => {
    const { service, sessions } = setup();
    const a = await service.start(user(), client, { refreshable: true });
    const again = await service.reissue(user({ tier: 'PRO' }), a.sessionId, client);
    expect(again.sessionId).toBe(a.sessionId);
    await expect(service.refresh(a.refreshToken)).rejects.toMatchObject({ code: 'REFRESH_TOKEN_REUSED' });
    const other = await service.reissue(user({ id: 8 }), a.sessionId, client);
    expect(other.sessionId).not.toBe(a.sessionId);
    expect(sessions.size).toBe(2);
  });
});

describe('R14 lock and unlock', () => {
  it('ends the sessions without keys on a lock, and writes the recent ones again when it is lifted', async () => {
    const { service, revokedKeys } = setup();
    const a = await service.start(user(), client, { refreshable: true });
    await service.revokeAllForLock(7, 'banned');
    expect(revokedKeys).toEqual([]);
    await service.writeRecentRevocations(7);
    expect(revokedKeys).toEqual([a.sessionId]);
  });
});

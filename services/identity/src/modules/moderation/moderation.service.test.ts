import { describe, expect, it } from 'vitest';
import type { IdentityConfig } from '../../config.js';
import { Links } from '../../links.js';
import type { UserLock } from '../sessions/redis-store.js';
import type { ModerationStore, ModerationTarget } from './moderation.repository.js';
import { lockOf, ModerationService } from './moderation.service.js';

const links = new Links({ WEB_BASE_URL: 'https://web.test', S3_ENDPOINT: 'https://s3.test', S3_BUCKET: 'media' } as IdentityConfig);
const DAY_MS = 86_400_000;

const target = (id: number, overrides: Partial<ModerationTarget> = {}): ModerationTarget => ({
  id,
  role: 'LISTENER',
  isBanned: false,
  suspendedUntil: null,
  deleteAt: null,
  ...overrides,
});

type BannedRow = Awaited<ReturnType<ModerationStore['lockedPage']>>['rows'][number];

/** Users and sessions in memory; what the service did, in order, in `log`. */
function setup(
  users: ModerationTarget[],
  opts: { redisDown?: boolean; revokedSessions?: Array<{ id: string; userId: number }>; roles?: Record<string, { id: number; role: string }> } = {},
) {
  const rows = new Map(users.map((u) => [u.id, u]));
  const log: string[] = [];
  const locks = new Map<number, UserLock | null>();
  const synced: { entries: Array<{ userId: number; lock: UserLock }>; revoked: string[] }[] = [];
  const repo: ModerationStore = {
    roleByEmail: (email) => Promise.resolve(opts.roles?.[email] ?? null),
    updateAdmin: (id) => {
      log.push(`updateAdmin ${id}`);
      return Promise.resolve();
    },
    createAdmin: (admin) => {
      log.push(`createAdmin ${admin.username} ${admin.email}`);
      return Promise.resolve();
    },
    target: (id) => Promise.resolve(rows.get(id) ?? null),
    setBan: (id, ban, announce) => {
      log.push(`setBan ${id} ${ban.isBanned} announce=${announce}`);
      rows.set(id, { ...rows.get(id)!, isBanned: ban.isBanned });
      return Promise.resolve();
    },
    setSuspension: (id, until) => {
      log.push(`setSuspension ${id} ${until ? 'until' : 'lifted'}`);
      return Promise.resolve();
    },
    lockedPage: () =>
      Promise.resolve({
        rows: [
          {
            id: 5,
            username: 'eve',
            displayName: '',
            avatarKey: 'images/a.png',
            tier: 'FREE',
            followerCount: 1,
            trackCount: 2,
            isBanned: false,
            banReason: null,
            bannedAt: null,
            suspendedUntil: new Date(Date.now() - 1000),
          } as BannedRow,
        ],
        total: 1,
      }),
    lockedUsers: () => Promise.resolve([...rows.values()].filter((u) => u.isBanned || u.deleteAt || u.suspendedUntil)),
    sessionsRevokedSince: () => Promise.resolve(opts.revokedSessions ?? []),
  };
  const sessions = {
    revokeAllForLock: (id: number, reason: string) => {
      log.push(`revokeAll ${id} ${reason}`);
      return Promise.resolve();
    },
    writeRecentRevocations: (id: number) => {
      log.push(`rewriteRevocations ${id}`);
      return Promise.resolve();
    },
  };
  const revocation = {
    setUserLock: (id: number, lock: UserLock | null) => {
      if (opts.redisDown) return Promise.reject(new Error('ECONNREFUSED'));
      log.push(`lock ${id} ${lock?.kind ?? 'none'}`);
      locks.set(id, lock);
      return Promise.resolve();
    },
    syncLocks: (entries: Array<{ userId: number; lock: UserLock }>, revoked: string[]) => {
      synced.push({ entries, revoked });
      return Promise.resolve();
    },
  };
  const errors: object[] = [];
  const service = new ModerationService(repo, sessions, revocation, links, { error: (obj: object) => void errors.push(obj) });
  return { service, log, locks, synced, errors };
}

describe('R14 account locks', () => {
  it('reads a ban first, then a pending deletion, then a running suspension', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const later = new Date(now.getTime() + 1000);
    expect(lockOf({ isBanned: true, suspendedUntil: later, deleteAt: now }, now)).toEqual({ kind: 'banned' });
    expect(lockOf({ isBanned: false, suspendedUntil: later, deleteAt: now }, now)).toEqual({ kind: 'deleted' });
    expect(lockOf({ isBanned: false, suspendedUntil: later }, now)).toEqual({ kind: 'suspended', until: later });
    expect(lockOf({ isBanned: false, suspendedUntil: now }, now)).toBeNull();
  });
});

describe('MOD-8 ban a user (R14)', () => {
  it('revokes every session first, then writes the lock; the event only when the flag changes', async () => {
    const { service, log } = setup([target(2)]);
    await expect(service.setBan(2, true, 'spam', 'c')).resolves.toEqual({ message: 'The user is banned.' });
    await service.setBan(2, true, 'spam', 'c');
    expect(log).toEqual([
      'setBan 2 true announce=true',
      'revokeAll 2 banned',
      'lock 2 banned',
      'setBan 2 true announce=false',
      'revokeAll 2 banned',
      'lock 2 banned',
    ]);
  });

  it('lifting a ban re-writes recent revocations before removing the lock, and keeps a running suspension', async () => {
    const until = new Date(Date.now() + DAY_MS);
    const { service, log, locks } = setup([target(2, { isBanned: true, suspendedUntil: until })]);
    await expect(service.setBan(2, false, null, 'c')).resolves.toEqual({ message: 'The ban is lifted.' });
    expect(log).toEqual(['setBan 2 false announce=true', 'lock 2 suspended']);
    expect(locks.get(2)).toEqual({ kind: 'suspended', until });
    const lifted = setup([target(3, { isBanned: true })]);
    await lifted.service.setBan(3, false, null, 'c');
    expect(lifted.log).toEqual(['setBan 3 false announce=true', 'rewriteRevocations 3', 'lock 3 none']);
  });

  it('answers USER_NOT_FOUND for an unknown user and FORBIDDEN for an admin', async () => {
    const { service, log } = setup([target(9, { role: 'ADMIN' })]);
    await expect(service.setBan(1, true, null, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(service.setBan(9, true, null, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(log).toEqual([]);
  });

  it('answers SERVICE_UNAVAILABLE with retry-after when the lock cannot be written (sessions already revoked)', async () => {
    const { service, log } = setup([target(2)], { redisDown: true });
    await expect(service.setBan(2, true, null, 'c')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
    expect(log).toEqual(['setBan 2 true announce=true', 'revokeAll 2 banned']);
  });
});

describe('MOD-9 suspend a user (R14)', () => {
  it('suspends for the given days, and 0 lifts the suspension', async () => {
    const { service, log } = setup([target(2)]);
    const before = Date.now();
    const result = await service.suspend(2, 3, 'rude', 'c');
    expect(Date.parse(result.suspendedUntil!) - before).toBeGreaterThanOrEqual(3 * DAY_MS);
    expect(Date.parse(result.suspendedUntil!) - before).toBeLessThan(3 * DAY_MS + 60_000);
    await expect(service.suspend(2, 0, null, 'c')).resolves.toEqual({ message: 'The suspension is lifted.', suspendedUntil: null });
    expect(log).toEqual([
      'setSuspension 2 until',
      'revokeAll 2 suspended',
      'lock 2 suspended',
      'setSuspension 2 lifted',
      'rewriteRevocations 2',
      'lock 2 none',
    ]);
  });
});

describe('MOD-10 banned users', () => {
  it('shows a lapsed suspension as null and falls back to the username for the display name', async () => {
    const page = await setup([]).service.banned(0, 20);
    expect(page.content).toEqual([
      expect.objectContaining({ id: 5, displayName: 'eve', suspendedUntil: null, avatarUrl: 'https://s3.test/media/images/a.png' }),
    ]);
  });
});

describe('revocation re-sync', () => {
  it("writes every lock and the recently revoked sessions, except a locked account's (its lock answers instead)", async () => {
    const { service, synced } = setup([target(2, { isBanned: true }), target(3), target(4, { deleteAt: new Date() })], {
      revokedSessions: [
        { id: 's-2', userId: 2 },
        { id: 's-3', userId: 3 },
      ],
    });
    await service.syncRevocations(900);
    expect(synced).toEqual([
      {
        entries: [
          { userId: 2, lock: { kind: 'banned' } },
          { userId: 4, lock: { kind: 'deleted' } },
        ],
        revoked: ['s-3'],
      },
    ]);
  });
});

describe('admin accounts from configuration (R13)', () => {
  it('creates a missing admin, updates an existing one, and never turns a regular account into an admin', async () => {
    const { service, log, errors } = setup([], {
      roles: { 'root@example.com': { id: 1, role: 'ADMIN' }, 'user@example.com': { id: 2, role: 'LISTENER' } },
    });
    await service.ensureAdmins([
      { email: 'New@Example.com', username: 'Boss', passwordHash: 'h' },
      { email: 'root@example.com', username: 'root', passwordHash: 'h' },
      { email: 'user@example.com', username: 'user', passwordHash: 'h' },
    ]);
    expect(log).toEqual(['createAdmin boss new@example.com', 'updateAdmin 1']);
    expect(errors).toEqual([{ email: 'user@example.com' }]);
  });
});

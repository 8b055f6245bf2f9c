import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import type { Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import type { TokenUser } from '../accounts/accounts.repository.js';
import { hashPassword } from '../accounts/passwords.js';
import type { RevocationStore, UserLock } from '../sessions/redis-store.js';
import type { DeletionRepository, DeletionTarget } from './deletion.repository.js';
import { DeletionService } from './deletion.service.js';

const PASSWORD = 'my own long password';
const GRACE_SECONDS = 7 * 86_400;
let hash: string;
beforeAll(async () => {
  hash = await hashPassword(PASSWORD);
});

const target = (overrides: Partial<DeletionTarget> = {}): DeletionTarget => ({
  id: 7,
  role: 'LISTENER',
  passwordHash: hash,
  isBanned: false,
  suspendedUntil: null,
  deleteAt: null,
  ...overrides,
});

/** One account in memory; the scheduled time, the locks written and the proofs asked of MFA. */
function setup(account: DeletionTarget | null, opts: { mfa?: 'ok' | 'wrong' | 'off'; redisDown?: boolean; graceOver?: boolean } = {}) {
  const locks: Array<UserLock | null> = [];
  const proofs: unknown[] = [];
  let scheduled: Date | null = null;
  let woken = 0;
  // Only the methods ACC-3…ACC-5 reach; the fake is cast because the repository is a class.
  const repo = {
    target: () => Promise.resolve(account),
    schedule: (_id: number, deleteAt: Date) => {
      scheduled = deleteAt;
      return Promise.resolve(deleteAt);
    },
    cancel: () => Promise.resolve(!opts.graceOver),
  } as unknown as DeletionRepository;
  const revocation = {
    setUserLock: (_id: number, lock: UserLock | null) => {
      if (opts.redisDown) return Promise.reject(new Error('ECONNREFUSED'));
      locks.push(lock);
      return Promise.resolve();
    },
  } as unknown as RevocationStore;
  const mfa = {
    verifyProof: (_id: number, proof: unknown) => {
      proofs.push(proof);
      if (opts.mfa === 'off') return Promise.reject(new AppError('MFA_NOT_ENABLED'));
      if (opts.mfa === 'wrong') return Promise.reject(new AppError('INVALID_MFA_CODE'));
      return Promise.resolve();
    },
  };
  const login = {
    authenticate: () => Promise.resolve({ user: { ...(account as object), id: 7 } as TokenUser, addressVerified: true, presentedDevice: null }),
  };
  const service = new DeletionService(repo, {
    sessions: { writeRecentRevocations: () => Promise.resolve() },
    revocation,
    apps: { writeRevoked: () => Promise.resolve() },
    mfa,
    login,
    storage: {} as ObjectStorage,
    graceSeconds: GRACE_SECONDS,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as Logger,
    wake: () => void (woken += 1),
  });
  return { service, locks, proofs, scheduled: () => scheduled, woken: () => woken };
}

const client = { ip: '203.0.113.1', userAgent: 'vitest' };

describe('ACC-3 request deletion', () => {
  it('schedules the removal after the grace and writes the deleted lock', async () => {
    const { service, locks, scheduled } = setup(target());
    const before = Date.now();
    const { deleteAt } = await service.requestDeletion(7, { password: PASSWORD }, 'c');
    expect(Date.parse(deleteAt) - before).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);
    expect(scheduled()?.toISOString()).toBe(deleteAt);
    expect(locks).toEqual([{ kind: 'deleted' }]);
  });

  it('asks the password of an account that has one: VALIDATION_FAILED (field password) without, INVALID_CURRENT_PASSWORD when wrong', async () => {
    const { service, locks } = setup(target());
    await expect(service.requestDeletion(7, {}, 'c')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'password' }] });
    await expect(service.requestDeletion(7, { password: 'not my password' }, 'c')).rejects.toMatchObject({ code: 'INVALID_CURRENT_PASSWORD' });
    expect(locks).toEqual([]);
  });

  it('asks a second factor of an account without a password, and FORBIDDEN when it has neither', async () => {
    const ok = setup(target({ passwordHash: null }), { mfa: 'ok' });
    await expect(ok.service.requestDeletion(7, {}, 'c')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'code' }] });
    await ok.service.requestDeletion(7, { recoveryCode: 'abcd-efgh' }, 'c');
    expect(ok.proofs).toEqual([{ recoveryCode: 'abcd-efgh' }]);
    await expect(setup(target({ passwordHash: null }), { mfa: 'wrong' }).service.requestDeletion(7, { code: '123456' }, 'c')).rejects.toMatchObject({
      code: 'INVALID_MFA_CODE',
    });
    await expect(setup(target({ passwordHash: null }), { mfa: 'off' }).service.requestDeletion(7, { code: '123456' }, 'c')).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('refuses an admin (FORBIDDEN) and an account already removed (UNAUTHORIZED)', async () => {
    await expect(setup(target({ role: 'ADMIN' })).service.requestDeletion(7, { password: PASSWORD }, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(setup(target({ deleteAt: new Date(Date.now() - 1000) })).service.requestDeletion(7, { password: PASSWORD }, 'c')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(setup(null).service.requestDeletion(7, { password: PASSWORD }, 'c')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('answers SERVICE_UNAVAILABLE with retry-after when the lock cannot be written', async () => {
    await expect(setup(target(), { redisDown: true }).service.requestDeletion(7, { password: PASSWORD }, 'c')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'retry-after': '5' },
    });
  });
});

describe('ACC-4 restore', () => {
  it('lifts the deleted lock inside the grace, keeping a running suspension', async () => {
    const until = new Date(Date.now() + 86_400_000);
    const { service, locks } = setup(target({ deleteAt: new Date(Date.now() + 1000), suspendedUntil: until }));
    await expect(service.restore('ann@example.com', PASSWORD, client, 'c')).resolves.toEqual({ message: 'The account is restored. Log in again.' });
    expect(locks).toEqual([{ kind: 'suspended', until }]);
  });

  it('answers RESOURCE_NOT_FOUND when nothing is pending or the grace is over', async () => {
    await expect(setup(target()).service.restore('ann@example.com', PASSWORD, client, 'c')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(setup(target({ deleteAt: new Date() }), { graceOver: true }).service.restore('ann@example.com', PASSWORD, client, 'c')).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
  });
});

describe('ACC-5 admin deletion', () => {
  it('schedules the removal now and wakes the grace worker; USER_NOT_FOUND and FORBIDDEN as for moderation', async () => {
    const { service, woken, locks } = setup(target());
    const before = Date.now();
    const { deleteAt } = await service.adminDelete(7, 'c');
    expect(Date.parse(deleteAt)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(deleteAt)).toBeGreaterThanOrEqual(before);
    expect(woken()).toBe(1);
    expect(locks).toEqual([{ kind: 'deleted' }]);
    await expect(setup(null).service.adminDelete(7, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(setup(target({ role: 'ADMIN' })).service.adminDelete(7, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

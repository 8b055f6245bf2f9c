import { describe, expect, it } from 'vitest';
import { APP_USAGE_RETENTION_DAYS, usageDay } from '@msp/contracts';
import { hashSecret } from '../sessions/secrets.js';
import type { AppsStore, StoredApp } from './apps.repository.js';
import { AppsService, MAX_APPS_PER_USER, secretMatches, usageRange } from './apps.service.js';
import type { UsageDay } from './app-usage.repository.js';

const OWNER = 1;
const OTHER = 2;
const DAY_MS = 86_400_000;

/** Apps and grants in memory; the Redis keys written in `revokedKeys` and `suspensionKeys`. */
function setup(opts: { redisDown?: boolean; usage?: UsageDay[] } = {}) {
  const apps = new Map<number, StoredApp>();
  const grants: Array<{ id: string; appId: number; userId: number; revoked: boolean }> = [];
  const revokedKeys: string[] = [];
  const suspensionKeys = new Map<string, boolean>();
  const errors: object[] = [];
  let nextId = 1;
  const repo: AppsStore = {
    create: (data, max) => {
      if ([...apps.values()].filter((a) => a.ownerId === data.ownerId).length >= max) return Promise.resolve(null);
      const now = new Date();
      const app: StoredApp = { ...data, id: nextId++, suspendedAt: null, createdAt: now, updatedAt: now };
      apps.set(app.id, app);
      return Promise.resolve(app);
    },
    listOfOwner: (ownerId) => {
      const mine = [...apps.values()].filter((a) => a.ownerId === ownerId);
      return Promise.resolve([mine, mine.length]);
    },
    find: (id) => Promise.resolve(apps.get(id) ?? null),
    findByClientId: (clientId) => Promise.resolve([...apps.values()].find((a) => a.clientId === clientId) ?? null),
    update: (id, data) => {
      const app = { ...apps.get(id)!, ...data, updatedAt: new Date() };
      apps.set(id, app);
      return Promise.resolve(app);
    },
    delete: (id) => {
      apps.delete(id);
      return Promise.resolve();
    },
    revokeGrants: (where) => {
      const ended = grants.filter(
        (g) => !g.revoked && ('id' in where ? g.id === where.id : g.appId === where.appId && (where.userId === undefined || g.userId === where.userId)),
      );
      ended.forEach((g) => (g.revoked = true));
      return Promise.resolve(ended.map((g) => g.id));
    },
    authorizedApps: () => Promise.reject(new Error('not used')),
    suspendedClientIds: () => Promise.resolve([...apps.values()].filter((a) => a.suspendedAt).map((a) => a.clientId)),
    recentlyRevokedGrantIds: () => Promise.resolve(grants.filter((g) => g.revoked).map((g) => g.id)),
    pruneCodes: () => Promise.resolve(0),
  };
  const revocation = {
    revokeSessions: (ids: string[]) => {
      if (opts.redisDown) return Promise.reject(new Error('ECONNREFUSED'));
      revokedKeys.push(...ids);
      return Promise.resolve();
    },
  };
  const status = {
    set: (clientId: string, suspended: boolean) => {
      if (opts.redisDown) return Promise.reject(new Error('ECONNREFUSED'));
      suspensionKeys.set(clientId, suspended);
      return Promise.resolve();
    },
    sync: (ids: string[]) => {
      ids.forEach((id) => suspensionKeys.set(id, true));
      return Promise.resolve();
    },
  };
  const logger = { warn: () => undefined, error: (obj: object) => void errors.push(obj) };
  const usage = opts.usage && { days: () => Promise.resolve(opts.usage!) };
  const service = new AppsService(repo, revocation, status, logger, usage);
  const grant = (appId: number, userId: number) => grants.push({ id: `g-${grants.length + 1}`, appId, userId, revoked: false });
  return { service, apps, grants, grant, revokedKeys, suspensionKeys };
}

const body = { name: 'My app', redirectUris: ['https://app.example/cb', 'https://app.example/cb'], confidential: true };

describe('APP-1 register an app', () => {
  it('answers the secret once (stored hashed), de-duplicates redirect URIs, and gives a public app no secret', async () => {
    const { service, apps } = setup();
    const created = await service.create(OWNER, body);
    expect(created.clientId).toMatch(/^app_/);
    expect(created.clientSecret).toMatch(/^secret_/);
    expect(created.redirectUris).toEqual(['https://app.example/cb']);
    expect(apps.get(created.id)?.secretHash).toBe(hashSecret(created.clientSecret!));
    expect(secretMatches(apps.get(created.id)!, created.clientSecret)).toBe(true);
    expect(secretMatches(apps.get(created.id)!, 'secret_wrong')).toBe(false);
    await expect(service.create(OWNER, { ...body, confidential: false })).resolves.toMatchObject({ clientSecret: null });
  });

  it(`answers FORBIDDEN past ${MAX_APPS_PER_USER} apps per account`, async () => {
    const { service } = setup();
    for (let i = 0; i < MAX_APPS_PER_USER; i += 1) await service.create(OWNER, body);
    await expect(service.create(OWNER, body)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.create(OTHER, body)).resolves.toMatchObject({ name: 'My app' });
  });
});

describe('APP-3…APP-6 owner only', () => {
  it("answers RESOURCE_NOT_FOUND for another user's app, exactly as for a missing one", async () => {
    const { service } = setup();
    const app = await service.create(OWNER, body);
    await expect(service.get(OTHER, app.id)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(service.update(OTHER, app.id, { name: 'x' })).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(service.delete(OTHER, app.id)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(service.rotateSecret(OTHER, app.id)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(service.get(OWNER, 999)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('APP-5 ends every grant (revoked-session keys) before deleting, and removes a suspension key', async () => {
    const { service, apps, grant, revokedKeys, suspensionKeys } = setup();
    const app = await service.create(OWNER, body);
    grant(app.id, 5);
    grant(app.id, 6);
    await service.setSuspended(app.id, true);
    await service.delete(OWNER, app.id);
    expect(revokedKeys).toEqual(['g-1', 'g-2']);
    expect(apps.has(app.id)).toBe(false);
    expect(suspensionKeys.get(app.clientId)).toBe(false);
  });

  it('APP-6 rotates the secret of a confidential app only (VALIDATION_FAILED for a public one)', async () => {
    const { service, apps } = setup();
    const app = await service.create(OWNER, body);
    const rotated = await service.rotateSecret(OWNER, app.id);
    expect(secretMatches(apps.get(app.id)!, rotated.clientSecret)).toBe(true);
    expect(secretMatches(apps.get(app.id)!, app.clientSecret)).toBe(false);
    const publicApp = await service.create(OWNER, { ...body, confidential: false });
    await expect(service.rotateSecret(OWNER, publicApp.id)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('APP-7 / APP-8 suspension', () => {
  it('keeps the first suspension time, writes the status key, and answers SERVICE_UNAVAILABLE when Redis is down', async () => {
    const { service, apps, suspensionKeys } = setup();
    const app = await service.create(OWNER, body);
    await expect(service.setSuspended(app.id, true)).resolves.toMatchObject({ isSuspended: true });
    const first = apps.get(app.id)?.suspendedAt;
    await service.setSuspended(app.id, true);
    expect(apps.get(app.id)?.suspendedAt).toBe(first);
    expect(suspensionKeys.get(app.clientId)).toBe(true);
    await expect(service.setSuspended(app.id, false)).resolves.toMatchObject({ isSuspended: false });
    await expect(service.setSuspended(999, true)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });

    const down = setup({ redisDown: true });
    const other = await down.service.create(OWNER, body);
    await expect(down.service.setSuspended(other.id, true)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
  });
});

describe('APP-10 revoke an authorization', () => {
  it("ends only the caller's grants to the app, and answers RESOURCE_NOT_FOUND for an unknown client id", async () => {
    const { service, grant, revokedKeys } = setup();
    const app = await service.create(OWNER, body);
    grant(app.id, 5);
    grant(app.id, 6);
    await service.revokeAuthorization(5, app.clientId);
    expect(revokedKeys).toEqual(['g-1']);
    await expect(service.revokeAuthorization(5, 'app_unknown')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });
});

describe('APP-17 usage', () => {
  const today = usageDay(Date.now());
  const daysAgo = (n: number) => usageDay(Date.now() - n * DAY_MS);

  it('defaults to the last 30 days and refuses a range outside the kept days or reversed', () => {
    expect(usageRange({})).toHaveLength(30);
    expect(usageRange({ from: daysAgo(2), to: today })).toEqual([daysAgo(2), daysAgo(1), today]);
    expect(() => usageRange({ to: usageDay(Date.now() + DAY_MS) })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: 'to' })] }),
    );
    expect(() => usageRange({ from: today, to: daysAgo(1) })).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ field: 'from' })] }));
    expect(() => usageRange({ from: daysAgo(APP_USAGE_RETENTION_DAYS) })).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field: 'from' })] }),
    );
  });

  it('sums the days and ranks the operations, for the owner only', async () => {
    const usage: UsageDay[] = [
      {
        day: daysAgo(1),
        requests: 5,
        limited: 1,
        operations: new Map([
          ['TRK-1', 3],
          ['USR-1', 2],
        ]),
      },
      { day: today, requests: 4, limited: 0, operations: new Map([['USR-1', 4]]) },
    ];
    const { service } = setup({ usage });
    const app = await service.create(OWNER, body);
    const result = await service.usage(OWNER, app.id, { from: daysAgo(1), to: today });
    expect(result).toMatchObject({
      totals: { requests: 9, rateLimited: 1 },
      topRoutes: [
        { operationId: 'USR-1', requests: 6 },
        { operationId: 'TRK-1', requests: 3 },
      ],
    });
    await expect(service.usage(OTHER, app.id, {})).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });
});

describe('key re-sync', () => {
  it('writes the suspension keys of suspended apps and the keys of recently ended grants', async () => {
    const { service, grant, revokedKeys, suspensionKeys } = setup();
    const app = await service.create(OWNER, body);
    grant(app.id, 5);
    await service.revokeAuthorization(5, app.clientId);
    await service.setSuspended(app.id, true);
    suspensionKeys.clear();
    revokedKeys.length = 0;
    await service.sync(900);
    expect(suspensionKeys.get(app.clientId)).toBe(true);
    expect(revokedKeys).toEqual(['g-1']);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { PlatformMetricsSchema } from '@msp/contracts';
import { createEnvelope, UserBanned, UserRegistered, UserUnbanned, UserDeleted } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const ADMIN = { 'x-user-id': '900', 'x-user-role': 'ADMIN', 'x-username': 'root' };
const USER = { 'x-user-id': '901', 'x-user-role': 'ARTIST', 'x-username': 'artie' };

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const user = (userId: number, role: 'ARTIST' | 'LISTENER') => ({
  userId,
  username: `u${userId}`,
  displayName: `u${userId}`,
  avatarUrl: null,
  tier: 'FREE' as const,
  role,
  isPrivate: false,
  createdAt: new Date().toISOString(),
});

async function track(artistId: number, originalSize: number, playCount: number, completedPlayCount: number) {
  const slug = `a-${randomUUID().slice(0, 8)}`;
  return app.infra.prisma.track.create({
    data: {
      artistId,
      title: slug,
      trackSlug: slug,
      genre: 'Jazz',
      releaseDate: new Date('2026-01-01T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      durationSeconds: 60,
      originalSize: BigInt(originalSize),
      playCount,
      completedPlayCount,
    },
    select: { id: true },
  });
}

const metrics = async () => {
  const res = await app.inject({ method: 'GET', url: '/api/admin/analytics', headers: ADMIN });
  expect(res.statusCode, res.body).toBe(200);
  return PlatformMetricsSchema.strict().parse(res.json());
};

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_analytics', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, STORAGE_CAPACITY_BYTES: '5000000' }), { logger: false });
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('MOD-12 platform metrics', () => {
  it('starts at zero, then follows users, roles, tracks, plays, storage and bans exactly', async () => {
    expect(await metrics()).toEqual({
      totalUsers: 0,
      totalTracks: 0,
      totalPlays: 0,
      playThroughRate: 0,
      totalStorageUsedBytes: 0,
      totalStorageCapacityBytes: 5_000_000,
      bannedUserCount: 0,
      totalBannedUsers: 0,
      artistToListenerRatio: '0:0',
    });
    for (const [id, role] of [
      [901, 'ARTIST'],
      [902, 'ARTIST'],
      [903, 'LISTENER'],
      [904, 'LISTENER'],
      [905, 'LISTENER'],
    ] as const) {
      await publish(createEnvelope(UserRegistered, user(id, role)));
    }
    await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 5, { message: 'projection' });
    const a = await track(901, 1000, 10, 4);
    await track(902, 2000, 6, 2);
    const gone = await track(902, 500, 4, 4);
    await app.infra.prisma.track.update({ where: { id: a.id }, data: { playCount: { increment: 1 } } });
    await app.infra.prisma.track.update({ where: { id: gone.id }, data: { deletedAt: new Date() } });
    await publish(createEnvelope(UserBanned, { userId: 903, reason: 'spam', bannedAt: new Date().toISOString() }));
    await publish(createEnvelope(UserBanned, { userId: 904, reason: null, bannedAt: new Date().toISOString() }));
    await publish(createEnvelope(UserUnbanned, { userId: 904 }));
    await publish(createEnvelope(UserDeleted, { userId: 905 }));
    // The unban of 904 arrives after its ban: wait for it too, not only for the two ban-state rows.
    await waitFor(
      async () =>
        (await metrics()).totalUsers === 4 &&
        (await app.infra.prisma.userBanState.count()) === 2 &&
        (await app.infra.prisma.userBanState.findUnique({ where: { userId: 904 } }))?.isBanned === false,
      { message: 'events' },
    );
    expect(await metrics()).toEqual({
      totalUsers: 4,
      totalTracks: 2,
      totalPlays: 21,
      playThroughRate: 10 / 21,
      totalStorageUsedBytes: 3000,
      totalStorageCapacityBytes: 5_000_000,
      bannedUserCount: 1,
      totalBannedUsers: 1,
      artistToListenerRatio: '2:2',
    });
  });

  it('403 for non-admins, 401 anonymous', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/admin/analytics', headers: USER })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/admin/analytics' })).statusCode).toBe(401);
  });
});

describe('MOD-11 admin delete is recorded in admin_audit', () => {
  it('stores who, what, when and the reason', async () => {
    const t = await track(901, 10, 0, 0);
    const res = await app.inject({ method: 'DELETE', url: `/api/admin/tracks/${t.id}?reason=copyright`, headers: ADMIN });
    expect(res.statusCode, res.body).toBe(200);
    await waitFor(async () => (await app.infra.prisma.adminAudit.count()) === 1, { message: 'audit row' });
    const [row] = await app.infra.prisma.adminAudit.findMany();
    expect(row).toMatchObject({ adminId: 900, adminName: 'root', targetType: 'TRACK', targetId: String(t.id), reason: 'copyright' });
    expect(row!.action).toContain('MOD-11');
    // A refused attempt is not an action.
    await app.inject({ method: 'DELETE', url: `/api/admin/tracks/${t.id}`, headers: USER });
    await app.inject({ method: 'DELETE', url: '/api/admin/tracks/999999', headers: ADMIN });
    expect(await app.infra.prisma.adminAudit.count()).toBe(1);
  });
});

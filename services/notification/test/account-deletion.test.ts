import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserDeleted } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadNotificationConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
const D = 9301, // deleted
  A = 9302,
  B = 9303;

async function deleteUser(userId: number) {
  const envelope = createEnvelope(UserDeleted, { userId });
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  await waitFor(async () => (await app.infra.prisma.processedEvent.count({ where: { eventId: envelope.id, consumer: 'notification--user-deletion' } })) > 0, {
    timeoutMs: 30_000,
    message: 'deletion not processed',
  });
}

/** Every integer column of every table holding `userId` (table.column → rows). */
async function rowsCarrying(userId: number): Promise<Record<string, number>> {
  const db = app.infra.prisma;
  const columns = await db.$queryRawUnsafe<Array<{ table: string; column: string }>>(
    `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type IN ('integer', 'bigint') AND table_name NOT LIKE '\\_prisma%'`,
  );
  const found: Record<string, number> = {};
  for (const { table, column } of columns) {
    const [{ n } = { n: 0 }] = await db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${table}" WHERE "${column}" = $1`, userId);
    if (n > 0) found[`${table}.${column}`] = n;
  }
  return found;
}

beforeAll(async () => {
  env = await startServiceTestEnv('notification_account_deletion', migrations);
  app = await buildApp(loadNotificationConfig(env.env), { logger: process.env.DEBUG_LOG === '1' });
  await app.ready();
  const db = app.infra.prisma;
  await db.userSummary.createMany({
    data: [D, A, B].map((userId) => ({ userId, username: `u${userId}`, displayName: `U${userId}` })),
  });
  const note = (recipientId: number, actorId: number, resourceId: number) => ({
    recipientId,
    actorId,
    type: 'LIKE' as const,
    resourceType: 'TRACK' as const,
    resourceId,
  });
  // 700 notifications to D (more than two batches), some from D to A, and one between A and B.
  await db.notification.createMany({ data: Array.from({ length: 700 }, (_, i) => note(D, A, 9400 + i)) });
  await db.notification.createMany({ data: [note(A, D, 9901), note(B, D, 9902), note(A, B, 9903)] });
  await db.notificationDedup.createMany({
    data: [
      { ...note(D, A, 9400), lastAt: new Date() },
      { ...note(A, D, 9901), lastAt: new Date() },
      { ...note(A, B, 9903), lastAt: new Date() },
    ],
  });
  await db.notificationPreference.createMany({ data: [{ userId: D }, { userId: A }] });
  await db.deviceToken.createMany({
    data: [
      { token: 'd-token', tokenHash: 'd-hash', userId: D, deviceType: 'MOBILE', transport: 'PROVIDER' },
      { token: 'a-token', tokenHash: 'a-hash', userId: A, deviceType: 'MOBILE', transport: 'PROVIDER' },
    ],
  });
  await db.trackRef.createMany({
    data: [
      { trackId: 9901, artistId: D, title: 'mine', trackSlug: 'mine' },
      { trackId: 9903, artistId: B, title: 'theirs', trackSlug: 'theirs' },
    ],
  });
  await db.playlistRef.create({ data: { playlistId: 9911, ownerId: D, title: 'p', playlistSlug: 'p' } });
  await db.follow.createMany({
    data: [
      { followerId: D, followeeId: A },
      { followerId: A, followeeId: D },
      { followerId: A, followeeId: B },
    ],
  });
  await db.block.createMany({
    data: [
      { blockerId: D, blockedId: B },
      { blockerId: B, blockedId: D },
    ],
  });
  await db.bannedUser.create({ data: { userId: D, bannedAt: new Date() } });
  // Webhooks: D owns an app with an endpoint and a delivery; D granted A's app; A's app got a delivery about D.
  await db.$executeRawUnsafe(`INSERT INTO webhook_apps (app_id, owner_id, name, version) VALUES (9951, ${D}, 'd-app', now()), (9952, ${A}, 'a-app', now())`);
  await db.$executeRawUnsafe(`INSERT INTO webhook_grants (grant_id, app_id, user_id, scopes) VALUES ('g-d', 9952, ${D}, '{}'), ('g-b', 9952, ${B}, '{}')`);
  await db.$executeRawUnsafe(
    `INSERT INTO webhook_endpoints (id, app_id, owner_id, url, events, secret) VALUES
       (9961, 9951, ${D}, 'https://d.example/hook', '{}', 's'), (9962, 9952, ${A}, 'https://a.example/hook', '{}', 's')`,
  );
  const delivery = (endpointId: number, resourceKey: string, data: object) =>
    db.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, resource_key, body) VALUES ($1::uuid, $2, $3::uuid, 'track.liked', $4, $5)`,
      randomUUID(),
      endpointId,
      randomUUID(),
      resourceKey,
      JSON.stringify({ id: randomUUID(), type: 'track.liked', data }),
    );
  const published = (recipientId: number, actorId: number) =>
    db.$executeRawUnsafe(
      `INSERT INTO outbox_event (id, type, payload, published_at) VALUES ($1::uuid, 'notification.notification.created.v1', $2::jsonb, now())`,
      randomUUID(),
      JSON.stringify({ data: { recipientId, notification: { user: { id: actorId, username: `u${actorId}` } }, unreadCount: 1 } }),
    );
  await published(A, D);
  await published(D, A);
  await published(A, B);
  await delivery(9961, 'track:9901', { trackId: 9901, ownerId: D, userId: A });
  await delivery(9962, 'track:9903', { trackId: 9903, ownerId: B, userId: D, likeCount: 1 });
  await delivery(9962, 'track:9903', { trackId: 9903, ownerId: B, userId: A, likeCount: 2 });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('ACC-5 user deleted (identity.user.deleted.v1) in notification', () => {
  it('removes notifications to and from the user, their settings, devices, copies, webhook rows and badge', async () => {
    const badgeKey = `notification:badge:${new URL(env.env.DATABASE_URL!).pathname.replace(/^\/+/, '')}:${D}`;
    await app.infra.redis.set(badgeKey, '700', 'EX', 600);
    await deleteUser(D);
    expect(await rowsCarrying(D)).toEqual({});
    expect(await app.infra.redis.exists(badgeKey)).toBe(0);
    const db = app.infra.prisma;
    // Others' rows stay.
    expect(await db.notification.count()).toBe(1);
    expect(await db.notificationDedup.count()).toBe(1);
    expect(await db.notificationPreference.count({ where: { userId: A } })).toBe(1);
    expect(await db.deviceToken.count({ where: { userId: A } })).toBe(1);
    expect(await db.follow.count()).toBe(1);
    expect(await db.outboxEvent.count({ where: { type: 'notification.notification.created.v1' } })).toBe(1);
    expect(await db.trackRef.count({ where: { trackId: 9903 } })).toBe(1);
    const deliveries = await db.$queryRawUnsafe<Array<{ body: string }>>('SELECT body FROM webhook_deliveries');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.body).toContain(`"userId":${A}`);
    expect(await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM webhook_grants WHERE user_id = ${B}`)).toHaveLength(1);
  });

  it('is idempotent: the event again finds nothing to remove', async () => {
    await deleteUser(D);
    expect(await rowsCarrying(D)).toEqual({});
    expect(await app.infra.prisma.notification.count()).toBe(1);
  });
});

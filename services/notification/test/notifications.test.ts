import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { ErrorResponseSchema, NotificationPreferencesSchema, UnreadCountSchema } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadNotificationConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const Preferences = NotificationPreferencesSchema.strict();
const ALL_ON = { notifyOnFollow: true, notifyOnLike: true, notifyOnRepost: true, notifyOnComment: true, notifyOnDM: true };

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

function as(userId: number | undefined) {
  return userId === undefined ? {} : { 'x-user-id': String(userId) };
}

const unreadCount = (userId?: number) => app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: as(userId) });
const getSettings = (userId?: number) => app.inject({ method: 'GET', url: '/api/notifications/settings', headers: as(userId) });
const patchSettings = (userId: number | undefined, payload: unknown) =>
  app.inject({ method: 'PATCH', url: '/api/notifications/settings', headers: as(userId), payload: payload as object });

beforeAll(async () => {
  env = await startServiceTestEnv('notification', migrations);
  app = await buildApp(loadNotificationConfig(env.env), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('notification service foundation', () => {
  it('answers /health and reports every dependency up on /ready', async () => {
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'up', service: 'notification' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ database: 'up', nats: 'up', redis: 'up', storage: 'up', realtime: 'up' });
  });

  it('owns the NOTIFICATION stream for notification.> subjects', async () => {
    const info = await (await jetstreamManager(app.infra.nc)).streams.info('NOTIFICATION');
    expect(info.config.subjects).toEqual(['notification.>']);
  });
});

describe('NOT-2 unread count', () => {
  it('answers 401 UNAUTHORIZED without a caller', async () => {
    const res = await unreadCount();
    expect(res.statusCode).toBe(401);
    expect(ErrorResponseSchema.parse(res.json())).toMatchObject({ code: 'UNAUTHORIZED', path: '/api/notifications/unread-count' });
  });

  it('answers 0 for a user without notifications', async () => {
    const res = await unreadCount(500);
    expect(res.statusCode).toBe(200);
    expect(UnreadCountSchema.strict().parse(res.json())).toEqual({ unreadCount: 0 });
  });

  it("counts exactly the caller's unread notifications", async () => {
    const base = { actorId: 9, resourceType: 'TRACK', resourceId: 77, targetTitle: 'My song', targetUrl: '/alice/my-song' } as const;
    await app.infra.prisma.notification.createMany({
      data: [
        { ...base, recipientId: 501, type: 'LIKE' },
        { ...base, recipientId: 501, type: 'REPOST' },
        { ...base, recipientId: 501, type: 'COMMENT' },
        { ...base, recipientId: 501, type: 'FOLLOW', resourceType: 'USER', resourceId: 9, isRead: true },
        { ...base, recipientId: 501, type: 'DM', resourceType: 'USER', resourceId: 9, conversationId: 4, isRead: true },
        { ...base, recipientId: 502, type: 'LIKE' },
        { ...base, recipientId: 502, type: 'REPLY' },
      ],
    });
    expect((await unreadCount(501)).json()).toEqual({ unreadCount: 3 });
    expect((await unreadCount(502)).json()).toEqual({ unreadCount: 2 });

    await app.infra.prisma.notification.updateMany({ where: { recipientId: 501, type: 'LIKE' }, data: { isRead: true } });
    expect((await unreadCount(501)).json()).toEqual({ unreadCount: 2 });
  });
});

describe('NOT-5 get notification preferences', () => {
  it('answers 401 UNAUTHORIZED without a caller', async () => {
    const res = await getSettings();
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });

  it('answers all five preferences true for a user who never changed them', async () => {
    const res = await getSettings(600);
    expect(res.statusCode).toBe(200);
    expect(Preferences.parse(res.json())).toEqual(ALL_ON);
    expect(await app.infra.prisma.notificationPreference.count({ where: { userId: 600 } })).toBe(0);
  });
});

describe('NOT-6 update notification preferences', () => {
  it('answers 401 UNAUTHORIZED without a caller, before validating the body', async () => {
    for (const payload of [{ notifyOnLike: false }, { notifyOnLike: 'no' }]) {
      const res = await patchSettings(undefined, payload);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHORIZED');
    }
  });

  it('changes only the given preferences and keeps them for NOT-5', async () => {
    const res = await patchSettings(601, { notifyOnLike: false, notifyOnDM: false });
    expect(res.statusCode).toBe(200);
    const expected = { ...ALL_ON, notifyOnLike: false, notifyOnDM: false };
    expect(Preferences.parse(res.json())).toEqual(expected);
    expect(Preferences.parse((await getSettings(601)).json())).toEqual(expected);

    const again = await patchSettings(601, { notifyOnDM: true, notifyOnComment: false });
    expect(again.json()).toEqual({ ...ALL_ON, notifyOnLike: false, notifyOnComment: false });
    expect((await getSettings(601)).json()).toEqual({ ...ALL_ON, notifyOnLike: false, notifyOnComment: false });
    // Another user's preferences are untouched.
    expect((await getSettings(602)).json()).toEqual(ALL_ON);
  });

  it('accepts an empty object and ignores unknown fields', async () => {
    const empty = await patchSettings(603, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual(ALL_ON);

    const extra = await patchSettings(603, { notifyOnFollow: false, shout: true, notifyOnEverything: false });
    expect(extra.statusCode).toBe(200);
    expect(Preferences.parse(extra.json())).toEqual({ ...ALL_ON, notifyOnFollow: false });

    const stillSame = await patchSettings(603, {});
    expect(stillSame.json()).toEqual({ ...ALL_ON, notifyOnFollow: false });
  });

  it('answers 400 VALIDATION_FAILED naming the field for anything but a boolean', async () => {
    for (const [field, value] of [
      ['notifyOnLike', 'false'],
      ['notifyOnFollow', 0],
      ['notifyOnRepost', null],
      ['notifyOnDM', 'yes'],
      ['notifyOnComment', [true]],
    ] as const) {
      const res = await patchSettings(604, { notifyOnFollow: false, [field]: value });
      expect(res.statusCode, field).toBe(400);
      const body = ErrorResponseSchema.parse(res.json());
      expect(body.code).toBe('VALIDATION_FAILED');
      expect(body.errors?.map((e) => e.field)).toEqual([field]);
    }
    // Nothing was written by the refused requests.
    expect((await getSettings(604)).json()).toEqual(ALL_ON);
  });

  it('answers 400 for a body that is not an object', async () => {
    const res = await app.inject({
      method: 'PATCH',
      url: '/api/notifications/settings',
      headers: { ...as(605), 'content-type': 'application/json' },
      payload: '[true]',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
  });
});

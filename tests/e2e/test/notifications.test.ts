import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, NotificationEventSchema, NotificationSchema, pageSchema, type Notification, type NotificationEvent } from '@msp/contracts';
import { connectNats, createEnvelope, UserFollowed, type NatsConnection } from '@msp/events';
import type { buildApp as buildNotification } from '@msp/notification';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';
import { browserSubscription, decryptWebPush, eventually, FleetClient, PushServiceStandIn } from './realtime-helpers.js';

const fleet = new Fleet();
let nc: NatsConnection;
const client = new FleetClient(fleet, () => nc);
const call = client.call.bind(client);
const push = new PushServiceStandIn();

const [ANN, BEN, CAT, DAN, EVE] = [6001, 6002, 6003, 6004, 6005];
const TRACK = 8101;
const NotificationPage = pageSchema(NotificationSchema.strict());

const notificationApp = () => fleet.apps.get('notification') as Awaited<ReturnType<typeof buildNotification>>;
const socialApp = () => fleet.apps.get('social') as Awaited<ReturnType<typeof buildSocial>>;

function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(ErrorResponseSchema.parse(res.body)).toMatchObject({ status, code });
}

async function notificationsOf(userId: number, query = ''): Promise<Notification[]> {
  const res = await call('GET', `/api/notifications${query}`, userId);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return NotificationPage.parse(res.body).content;
}

const unread = async (userId: number) => (await call('GET', '/api/notifications/unread-count', userId)).body.unreadCount as number;
const badge = async (userId: number) => (await call('GET', '/api/notifications/badge', userId)).body.unreadCount as number;

beforeAll(async () => {
  // The test's push service stand-in listens on 127.0.0.1 over plain http.
  await fleet.start(
    { RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' },
    { notification: { WEB_PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' } },
  );
  nc = await connectNats(fleet.nats.url, 'e2e-notifications');
  await push.start();
  for (const [id, name] of [
    [ANN, 'ann'],
    [BEN, 'ben'],
    [CAT, 'cat'],
    [DAN, 'dan'],
    [EVE, 'eve'],
  ] as const)
    await client.registerUser(id, name);
  await eventually(async () => (await socialApp().infra.prisma.userSummary.count()) === 5, 'social did not receive the users');
  await eventually(async () => (await notificationApp().infra.prisma.userSummary.count()) === 5, 'notification did not receive the users');
  await client.createTrack(TRACK, ANN, { title: 'Night Drive' });
  await eventually(async () => (await socialApp().infra.prisma.trackRef.count({ where: { trackId: TRACK } })) === 1, 'social did not see the track');
  await eventually(
    async () => (await notificationApp().infra.prisma.trackRef.count({ where: { trackId: TRACK } })) === 1,
    'notification did not see the track',
  );
}, 120_000);

afterAll(async () => {
  await client.close();
  await push.close();
  await nc?.close();
  await fleet.close();
}, 60_000);

describe('R15 / NOT-1 / NOT-2 / NOT-4 / WS-3 notifications from follows, likes, reposts, comments, replies and messages', () => {
  it("shows Ann FOLLOW, LIKE, REPOST, COMMENT and DM with every field, live on WS-3; Ben gets Cat's REPLY", async () => {
    const annLive = await client.stomp(ANN, '/user/queue/notifications');
    expect((await call('POST', `/api/users/${ANN}/follow`, BEN)).status).toBe(200);
    expect((await call('POST', `/api/tracks/${TRACK}/like`, BEN)).status).toBe(200);
    expect((await call('POST', `/api/tracks/${TRACK}/repost`, BEN)).status).toBe(200);
    const comment = await call('POST', `/api/tracks/${TRACK}/comments`, BEN, { body: 'what a drop', timestampSeconds: 12 });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    expect((await call('POST', `/api/comments/${comment.body.id}/replies`, CAT, { body: 'agreed' })).status).toBe(201);
    // Ann's own actions never notify her.
    expect((await call('POST', `/api/tracks/${TRACK}/comments`, ANN, { body: 'thanks all' })).status).toBe(201);
    // The DM comes through another consumer (messaging's stream): let the four social ones land
    // first so the running unread counts on WS-3 are deterministic.
    await eventually(async () => (await unread(ANN)) === 4, 'the social notifications did not arrive');
    const conversationId = (await call('POST', `/api/conversations/${ANN}/start`, BEN)).body.id as number;
    expect((await call('POST', `/api/conversations/${conversationId}/messages`, BEN, { body: 'loved it' })).status).toBe(201);

    const list = await eventually(async () => {
      const items = await notificationsOf(ANN);
      return items.length >= 5 ? items : undefined;
    }, 'Ann did not get five notifications');
    expect(list.map((n) => n.type)).toEqual(['DM', 'COMMENT', 'REPOST', 'LIKE', 'FOLLOW']);
    const byType = Object.fromEntries(list.map((n) => [n.type, n]));
    const ben = { id: BEN, username: 'ben', displayName: 'BEN', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 0 };
    expect(byType.FOLLOW).toEqual({
      id: expect.any(Number),
      type: 'FOLLOW',
      user: ben,
      resource: { resourceType: 'USER', resourceId: BEN },
      targetTitle: null,
      targetUrl: '/ben',
      conversationId: null,
      isRead: false,
      createdAt: expect.any(String),
    });
    for (const type of ['LIKE', 'REPOST', 'COMMENT'] as const) {
      expect(byType[type]).toMatchObject({
        user: ben,
        resource: { resourceType: 'TRACK', resourceId: TRACK },
        targetTitle: 'Night Drive',
        targetUrl: `/ann/song-${TRACK}`,
        conversationId: null,
        isRead: false,
      });
    }
    expect(byType.DM).toMatchObject({
      user: ben,
      resource: { resourceType: 'USER', resourceId: BEN },
      targetTitle: null,
      targetUrl: `/messages/${conversationId}`,
      conversationId,
      isRead: false,
    });
    expect(new Date(byType.DM!.createdAt).toISOString()).toBe(byType.DM!.createdAt);

    const benList = await eventually(async () => {
      const items = await notificationsOf(BEN);
      return items.find((n) => n.type === 'REPLY');
    }, 'Ben did not get the REPLY');
    expect(benList).toMatchObject({
      user: { id: CAT, username: 'cat' },
      resource: { resourceType: 'TRACK', resourceId: TRACK },
      targetTitle: 'Night Drive',
      targetUrl: `/ann/song-${TRACK}`,
    });

    // WS-3 delivered each of them while Ann was connected, with the running unread count.
    await eventually(() => annLive.received.length >= 5, 'WS-3 did not deliver five notifications');
    const events = annLive.received.map((r) => NotificationEventSchema.strict().parse(r.body));
    expect(events.every((e) => e.event === 'NOTIFICATION_CREATED')).toBe(true);
    expect(events.map((e) => e.notification!.id).sort()).toEqual(list.map((n) => n.id).sort());
    expect(events.map((e) => e.unreadCount)).toEqual([1, 2, 3, 4, 5]);
    expect(events.find((e) => e.notification!.type === 'LIKE')!.notification).toEqual(byType.LIKE);

    // NOT-2 counts them; NOT-4 zeroes it and WS-3 says so.
    expect(await unread(ANN)).toBe(5);
    expect((await notificationsOf(ANN, '?unreadOnly=true')).length).toBe(5);
    const marked = await call('POST', '/api/notifications/mark-all-read', ANN);
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ message: expect.any(String) });
    expect(await unread(ANN)).toBe(0);
    expect(await notificationsOf(ANN, '?unreadOnly=true')).toEqual([]);
    expect((await notificationsOf(ANN)).every((n) => n.isRead)).toBe(true);
    await eventually(() => annLive.received.length >= 6, 'no NOTIFICATIONS_READ on WS-3');
    expect(annLive.received[5]!.body).toEqual({ event: 'NOTIFICATIONS_READ', notification: null, unreadCount: 0 } satisfies NotificationEvent);
  });
});

describe('NOT-7 / NOT-8 push, and R15 preferences and the 24-h rule', () => {
  const subscription = browserSubscription('');
  let token = '';

  beforeAll(() => {
    const sub = JSON.parse(subscription.token) as { endpoint: string };
    sub.endpoint = `${push.url}/push/ann-browser`;
    token = JSON.stringify(sub);
  });

  const pushesFor = (type: string, actorId: number) =>
    push.received
      .map((r) => JSON.parse(decryptWebPush(r.body, subscription)) as NotificationEvent)
      .filter((e) => e.notification?.type === type && e.notification.user.id === actorId);

  it('pushes an encrypted web-push request the subscription can decrypt; notifyOnLike false means no notification and no push', async () => {
    expect((await call('POST', '/api/users/me/device-tokens', ANN, { token, deviceType: 'WEB' })).body).toEqual({ message: expect.any(String) });
    expectError(await call('POST', '/api/users/me/device-tokens', ANN, { token, deviceType: 'WEB' }), 409, 'DEVICE_TOKEN_EXISTS');
    expect((await call('PATCH', '/api/notifications/settings', ANN, { notifyOnLike: false })).body.notifyOnLike).toBe(false);

    expect((await call('POST', `/api/tracks/${TRACK}/like`, CAT)).status).toBe(200);
    // A later event of the same stream: once it is pushed, the like has been handled.
    expect((await call('POST', `/api/users/${ANN}/follow`, DAN)).status).toBe(200);
    await eventually(() => pushesFor('FOLLOW', DAN).length === 1, 'the FOLLOW was not pushed');
    const request = push.received.at(-1)!;
    expect(request.path).toBe('/push/ann-browser');
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(request.headers.authorization).toMatch(/^vapid t=.+, k=.+$/);
    expect(request.headers.ttl).toBeDefined();
    const pushed = pushesFor('FOLLOW', DAN)[0]!;
    expect(pushed.event).toBe('NOTIFICATION_CREATED');
    const stored = (await notificationsOf(ANN)).find((n) => n.id === pushed.notification!.id);
    expect(stored).toEqual(pushed.notification);
    expect(pushesFor('LIKE', CAT)).toEqual([]);
    expect((await notificationsOf(ANN)).some((n) => n.type === 'LIKE' && n.user.id === CAT)).toBe(false);
  });

  it('makes one notification for a like, an unlike and a like again within 24 h', async () => {
    await call('PATCH', '/api/notifications/settings', ANN, { notifyOnLike: true });
    expect((await call('POST', `/api/tracks/${TRACK}/like`, DAN)).status).toBe(200);
    expect((await call('DELETE', `/api/tracks/${TRACK}/like`, DAN)).status).toBe(200);
    expect((await call('POST', `/api/tracks/${TRACK}/like`, DAN)).status).toBe(200);
    expect((await call('POST', `/api/tracks/${TRACK}/repost`, DAN)).status).toBe(200);
    const list = await eventually(async () => {
      const items = await notificationsOf(ANN);
      return items.some((n) => n.type === 'REPOST' && n.user.id === DAN) ? items : undefined;
    }, 'the marker REPOST did not arrive');
    expect(list.filter((n) => n.type === 'LIKE' && n.user.id === DAN)).toHaveLength(1);
    await eventually(() => pushesFor('REPOST', DAN).length === 1, 'the REPOST was not pushed');
    expect(pushesFor('LIKE', DAN)).toHaveLength(1);
  });

  it('drops the token when the push service answers 410, and moves a token registered by another user', async () => {
    push.status = 410;
    const before = push.received.length;
    expect((await call('POST', `/api/users/${ANN}/follow`, CAT)).status).toBe(200);
    await eventually(() => push.received.length > before, 'no push attempt');
    const tokens = notificationApp().infra.prisma.deviceToken;
    await eventually(async () => (await tokens.count({ where: { userId: ANN } })) === 0, 'the rejected token was not removed');
    push.status = 201;

    // Registered again by Ann (accepted: it was gone), then by Ben: it moves to Ben.
    expect((await call('POST', '/api/users/me/device-tokens', ANN, { token, deviceType: 'WEB' })).status).toBe(200);
    expect((await call('POST', '/api/users/me/device-tokens', BEN, { token, deviceType: 'WEB' })).status).toBe(200);
    expect(await tokens.findMany({ select: { userId: true } })).toEqual([{ userId: BEN }]);
    const sent = push.received.length;
    expect((await call('POST', `/api/users/${BEN}/follow`, DAN)).status).toBe(200);
    await eventually(
      () => pushesFor('FOLLOW', DAN).some((e) => e.notification!.id !== pushesFor('FOLLOW', DAN)[0]!.notification!.id),
      'Ben did not get the push',
    );
    expect(push.received.length).toBe(sent + 1);
    // NOT-8 by Ann does not remove Ben's token; by Ben it does (idempotently).
    expect((await call('DELETE', `/api/users/me/device-tokens?token=${encodeURIComponent(token)}`, ANN)).status).toBe(204);
    expect(await tokens.count()).toBe(1);
    expect((await call('DELETE', `/api/users/me/device-tokens?token=${encodeURIComponent(token)}`, BEN)).status).toBe(204);
    expect((await call('DELETE', `/api/users/me/device-tokens?token=${encodeURIComponent(token)}`, BEN)).status).toBe(204);
    expect(await tokens.count()).toBe(0);
  });
});

describe('NOT-3 quick badge unread count', () => {
  it('equals NOT-2 within 5 s after a burst of 50 notifications and after NOT-4', async () => {
    expect(await badge(EVE)).toBe(0); // now cached as 0
    const at = new Date().toISOString();
    for (let i = 0; i < 50; i++) {
      await client.publish(
        createEnvelope(UserFollowed, { followerId: 7000 + i, followeeId: EVE, followerFollowingCount: 1, followeeFollowerCount: i + 1, at }),
      );
    }
    await eventually(async () => (await unread(EVE)) === 50, 'NOT-2 did not reach 50', 20_000);
    const exactAt = Date.now();
    await eventually(async () => (await badge(EVE)) === 50, 'NOT-3 did not catch up with NOT-2', 5000);
    expect(Date.now() - exactAt).toBeLessThan(5000);

    expect((await call('POST', '/api/notifications/mark-all-read', EVE, {})).status).toBe(200);
    expect(await unread(EVE)).toBe(0);
    await eventually(async () => (await badge(EVE)) === 0, 'NOT-3 did not follow NOT-4', 5000);
  });
});

describe('NOT-1 / NOT-3 / NOT-4 / NOT-7 / NOT-8 bad input', () => {
  it('answers 4xx ErrorResponse, never 500', async () => {
    expectError(await call('GET', '/api/notifications?unreadOnly=maybe', ANN), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/api/notifications?size=0', ANN), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/api/notifications?page=x', ANN), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/api/notifications/mark-all-read', ANN, undefined, { raw: '{nope' }), 400, 'MALFORMED_REQUEST');
    const register = (body: unknown, raw?: string) => call('POST', '/api/users/me/device-tokens', ANN, body, { raw });
    expectError(await register({}), 400, 'VALIDATION_FAILED');
    expectError(await register({ token: 'abc', deviceType: 'PHONE' }), 400, 'VALIDATION_FAILED');
    expectError(await register({ token: '', deviceType: 'MOBILE' }), 400, 'VALIDATION_FAILED');
    expectError(await register({ token: 'x'.repeat(4097), deviceType: 'MOBILE' }), 400, 'VALIDATION_FAILED');
    expectError(await register({ token: 'not a subscription', deviceType: 'WEB' }), 400, 'VALIDATION_FAILED');
    expectError(await register({ token: JSON.stringify({ endpoint: 'https://push.example/x' }), deviceType: 'WEB' }), 400, 'VALIDATION_FAILED');
    expectError(await register(undefined, '{"token":'), 400, 'MALFORMED_REQUEST');
    expectError(await call('DELETE', '/api/users/me/device-tokens', ANN), 400, 'VALIDATION_FAILED');
    for (const [method, path] of [
      ['GET', '/api/notifications'],
      ['GET', '/api/notifications/badge'],
      ['POST', '/api/notifications/mark-all-read'],
      ['POST', '/api/users/me/device-tokens'],
      ['DELETE', '/api/users/me/device-tokens?token=a'],
    ] as const) {
      expectError(await call(method, path), 401, 'UNAUTHORIZED');
    }
    // A mobile token is accepted as an opaque string.
    expect((await register({ token: 'fcm:abc123', deviceType: 'MOBILE' })).status).toBe(200);
  });
});

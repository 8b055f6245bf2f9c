import { createECDH, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { NotificationSchema, pageSchema } from '@msp/contracts';
import {
  CommentAdded,
  createEnvelope,
  ItemLiked,
  ItemReposted,
  ItemUnliked,
  MessageSent,
  PlaylistChanged,
  TrackChanged,
  UserBanned,
  UserBlocked,
  UserFollowed,
  UserRegistered,
  type EventEnvelope,
} from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadNotificationConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NotificationPage = pageSchema(NotificationSchema.strict());

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

// A push service / mobile provider stand-in: records requests and answers `status`.
const received: Array<{ path: string; body: Buffer; headers: Record<string, unknown> }> = [];
let status = 201;
let pushServer: Server;
let pushUrl = '';

const [OWNER, FAN, REPLIER, BLOCKER, BANNED, QUIET] = [61, 62, 63, 64, 65, 66];
const TRACK = 700;
const PLAYLIST = 70;
const at = () => new Date().toISOString();

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const as = (userId?: number) => (userId === undefined ? {} : { 'x-user-id': String(userId) });
const list = async (userId: number, query = '') =>
  NotificationPage.parse((await app.inject({ method: 'GET', url: `/api/notifications${query}`, headers: as(userId) })).json()).content;
const count = (userId: number) => app.infra.prisma.notification.count({ where: { recipientId: userId } });
const registerToken = (userId: number, token: string, deviceType: string) =>
  app.inject({ method: 'POST', url: '/api/users/me/device-tokens', headers: as(userId), payload: { token, deviceType } });

/** Waits until the given events went through the social consumer: a marker FOLLOW to QUIET. */
async function afterSocialEvents(...events: EventEnvelope[]) {
  for (const e of events) await publish(e);
  const before = await count(QUIET);
  await publish(
    createEnvelope(UserFollowed, { followerId: FAN + 1000 + before, followeeId: QUIET, followerFollowingCount: 0, followeeFollowerCount: 0, at: at() }),
  );
  await waitFor(async () => (await count(QUIET)) === before + 1, { message: 'social consumer did not catch up' });
}

beforeAll(async () => {
  env = await startServiceTestEnv('notification_events', migrations);
  pushServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks), headers: req.headers });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => pushServer.listen(0, '127.0.0.1', r));
  pushUrl = `http://127.0.0.1:${(pushServer.address() as AddressInfo).port}`;
  app = await buildApp(loadNotificationConfig({ ...env.env, MOBILE_PUSH_URL: `${pushUrl}/mobile`, WEB_PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' }), {
    logger: false,
  });
  await app.ready();
  for (const [id, name] of [
    [OWNER, 'owner'],
    [FAN, 'fan'],
    [REPLIER, 'replier'],
    [BLOCKER, 'blocker'],
    [BANNED, 'banned'],
    [QUIET, 'quiet'],
  ] as const) {
    await publish(
      createEnvelope(UserRegistered, {
        userId: id,
        username: name,
        displayName: name,
        avatarUrl: null,
        tier: 'FREE',
        role: 'LISTENER',
        isPrivate: false,
        createdAt: at(),
      }),
    );
  }
  await publish(
    createEnvelope(TrackChanged, {
      trackId: TRACK,
      artistId: OWNER,
      title: 'Low Tide',
      trackSlug: 'low-tide',
      state: 'FINISHED',
      isPrivate: false,
      access: 'PLAYABLE',
      durationSeconds: 100,
      coverUrl: null,
      genre: 'Ambient',
      publishedAt: at(),
      createdAt: at(),
    }),
  );
  await publish(
    createEnvelope(PlaylistChanged, {
      playlistId: PLAYLIST,
      ownerId: OWNER,
      title: 'Shore',
      playlistSlug: 'shore',
      isPrivate: false,
      coverArtUrl: null,
      createdAt: at(),
    }),
  );
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 6 && (await app.infra.prisma.playlistRef.count()) === 1, {
    // Setup only: the first consumers start while every test file of the run is booting.
    timeoutMs: 15_000,
    message: 'projections did not catch up',
  });
});

afterAll(async () => {
  await app?.close();
  await new Promise((r) => pushServer?.close(r));
  await env?.close();
});

describe('NOT-2 / NOT-5 / NOT-6 R15 notifications from domain events', () => {
  it('creates FOLLOW, LIKE and REPOST of a playlist, COMMENT, REPLY and DM with their targets', async () => {
    await afterSocialEvents(
      createEnvelope(UserFollowed, { followerId: FAN, followeeId: OWNER, followerFollowingCount: 1, followeeFollowerCount: 1, at: at() }),
      createEnvelope(ItemLiked, { userId: FAN, targetType: 'PLAYLIST', targetId: PLAYLIST, ownerId: OWNER, likeCount: 1, at: at() }),
      createEnvelope(ItemReposted, { userId: FAN, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, repostCount: 1, at: at() }),
      createEnvelope(CommentAdded, {
        commentId: 1,
        trackId: TRACK,
        trackOwnerId: OWNER,
        authorId: FAN,
        replyToCommentId: null,
        parentAuthorId: null,
        body: 'nice',
        commentCount: 1,
        at: at(),
      }),
      createEnvelope(CommentAdded, {
        commentId: 2,
        trackId: TRACK,
        trackOwnerId: OWNER,
        authorId: REPLIER,
        replyToCommentId: 1,
        parentAuthorId: FAN,
        body: 'yes',
        commentCount: 2,
        at: at(),
      }),
    );
    await publish(createEnvelope(MessageSent, { messageId: 1, conversationId: 5, senderId: FAN, recipientId: OWNER, content: 'hi', renderings: {}, at: at() }));
    await waitFor(async () => (await count(OWNER)) === 5, { message: 'DM not created' });
    const mine = await list(OWNER);
    expect(mine.map((n) => [n.type, n.resource.resourceType, n.targetTitle, n.targetUrl, n.conversationId])).toEqual([
      ['DM', 'USER', null, '/messages/5', 5],
      ['COMMENT', 'TRACK', 'Low Tide', '/owner/low-tide', null],
      ['REPOST', 'TRACK', 'Low Tide', '/owner/low-tide', null],
      ['LIKE', 'PLAYLIST', 'Shore', '/owner/sets/shore', null],
      ['FOLLOW', 'USER', null, '/fan', null],
    ]);
    expect(mine.every((n) => n.user.id === FAN && n.user.username === 'fan')).toBe(true);
    expect((await list(FAN)).map((n) => [n.type, n.user.id, n.resource.resourceId])).toEqual([['REPLY', REPLIER, TRACK]]);
    // Each creation committed its WS-3 / push event.
    expect(await app.infra.prisma.outboxEvent.count({ where: { type: 'notification.notification.created.v1' } })).toBe(
      await app.infra.prisma.notification.count(),
    );
  });

  it('never for own actions, across a block, from a banned user, with the preference off, or twice in 24 h', async () => {
    const before = await count(OWNER);
    await app.inject({ method: 'PATCH', url: '/api/notifications/settings', headers: as(OWNER), payload: { notifyOnComment: false } });
    await publish(createEnvelope(UserBlocked, { blockerId: OWNER, blockedId: BLOCKER, counts: [], at: at() }));
    await publish(createEnvelope(UserBanned, { userId: BANNED, reason: null, bannedAt: at() }));
    await waitFor(async () => (await app.infra.prisma.bannedUser.count()) === 1, { message: 'ban not copied' });
    await afterSocialEvents(
      createEnvelope(ItemLiked, { userId: OWNER, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, likeCount: 1, at: at() }),
      createEnvelope(UserFollowed, { followerId: BLOCKER, followeeId: OWNER, followerFollowingCount: 1, followeeFollowerCount: 2, at: at() }),
      createEnvelope(UserFollowed, { followerId: BANNED, followeeId: OWNER, followerFollowingCount: 1, followeeFollowerCount: 2, at: at() }),
      createEnvelope(CommentAdded, {
        commentId: 3,
        trackId: TRACK,
        trackOwnerId: OWNER,
        authorId: REPLIER,
        replyToCommentId: null,
        parentAuthorId: null,
        body: 'hm',
        commentCount: 3,
        at: at(),
      }),
      createEnvelope(ItemLiked, { userId: REPLIER, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, likeCount: 2, at: at() }),
      createEnvelope(ItemUnliked, { userId: REPLIER, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, likeCount: 1, at: at() }),
      createEnvelope(ItemLiked, { userId: REPLIER, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, likeCount: 2, at: at() }),
    );
    expect(await count(OWNER)).toBe(before + 1);
    expect((await list(OWNER))[0]).toMatchObject({ type: 'LIKE', user: { id: REPLIER } });
  });

  it('hides notifications across a later block or from a later-banned actor, in NOT-1 and both counts', async () => {
    const unread = async () => (await app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: as(FAN) })).json().unreadCount;
    expect(await unread()).toBe(1);
    await publish(createEnvelope(UserBanned, { userId: REPLIER, reason: null, bannedAt: at() }));
    await waitFor(async () => (await app.infra.prisma.bannedUser.count()) === 2, { message: 'ban not copied' });
    expect(await list(FAN)).toEqual([]);
    expect(await unread()).toBe(0);
  });
});

describe('NOT-1 actor isFollowing', () => {
  it("is the recipient's follow of the actor, from social's follow events", async () => {
    expect((await list(OWNER)).filter((n) => n.user.id === FAN).every((n) => !n.user.isFollowing)).toBe(true);
    await afterSocialEvents(
      createEnvelope(UserFollowed, { followerId: OWNER, followeeId: FAN, followerFollowingCount: 1, followeeFollowerCount: 1, at: at() }),
    );
    const fromFan = (await list(OWNER)).filter((n) => n.user.id === FAN);
    expect(fromFan.length).toBeGreaterThan(0);
    expect(fromFan.every((n) => n.user.isFollowing)).toBe(true);
    // Fan has followed Owner since the first test.
    expect((await list(FAN)).find((n) => n.type === 'FOLLOW')).toMatchObject({ user: { id: OWNER, isFollowing: true } });
  });
});

describe('NOT-1 / NOT-3 / NOT-4', () => {
  it('filters unreadOnly, keeps the badge within its TTL of the truth, and marks all read with an event', async () => {
    const badge = async () => (await app.inject({ method: 'GET', url: '/api/notifications/badge', headers: as(OWNER) })).json().unreadCount;
    const exact = (await list(OWNER, '?unreadOnly=true&size=100')).length;
    expect(exact).toBeGreaterThan(0);
    // The ban above made the cached value stale: it is corrected within the TTL (≤ 5 s).
    await waitFor(async () => (await badge()) === exact, { timeoutMs: 5000, message: 'badge not corrected after the ban' });
    // A stale cached value (say another writer raced) is corrected from the database within the TTL.
    await app.infra.redis.set(`notification:badge:${new URL(env.env.DATABASE_URL!).pathname.slice(1)}:${OWNER}`, '999', 'EX', 2);
    expect(await badge()).toBe(999);
    await waitFor(async () => (await badge()) === exact, { timeoutMs: 5000, message: 'badge not corrected' });

    const res = await app.inject({ method: 'POST', url: '/api/notifications/mark-all-read', headers: as(OWNER) });
    expect(res.statusCode).toBe(200);
    expect(await list(OWNER, '?unreadOnly=true')).toEqual([]);
    expect(await badge()).toBe(0);
    const events = await app.infra.prisma.outboxEvent.findMany({ where: { type: 'notification.notifications.read.v1' } });
    expect(events.map((e) => (e.payload as { data: unknown }).data)).toEqual([{ recipientId: OWNER, unreadCount: 0 }]);
  });
});

describe('NOT-7 / NOT-8 device tokens and push', () => {
  it('registers, refuses a duplicate for the same user (409), moves a token to another user, unregisters idempotently', async () => {
    expect((await registerToken(FAN, 'mobile-token-1', 'MOBILE')).statusCode).toBe(200);
    expect((await registerToken(FAN, 'mobile-token-1', 'MOBILE')).json()).toMatchObject({ status: 409, code: 'DEVICE_TOKEN_EXISTS' });
    expect((await registerToken(QUIET, 'mobile-token-1', 'TABLET')).statusCode).toBe(200);
    expect(await app.infra.prisma.deviceToken.findMany({ select: { userId: true, deviceType: true } })).toEqual([{ userId: QUIET, deviceType: 'TABLET' }]);
    const del = (userId: number) => app.inject({ method: 'DELETE', url: '/api/users/me/device-tokens?token=mobile-token-1', headers: as(userId) });
    expect((await del(FAN)).statusCode).toBe(204);
    expect(await app.infra.prisma.deviceToken.count()).toBe(1);
    expect((await del(QUIET)).statusCode).toBe(204);
    expect((await del(QUIET)).statusCode).toBe(204);
    expect(await app.infra.prisma.deviceToken.count()).toBe(0);
  });

  it('pushes to web and mobile tokens after the fact and drops tokens the push service rejects with 410', async () => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const web = JSON.stringify({
      endpoint: `${pushUrl}/web/1`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
    });
    expect((await registerToken(OWNER, web, 'WEB')).statusCode).toBe(200);
    expect((await registerToken(OWNER, 'mobile-2', 'MOBILE')).statusCode).toBe(200);
    await publish(createEnvelope(UserFollowed, { followerId: QUIET, followeeId: OWNER, followerFollowingCount: 1, followeeFollowerCount: 3, at: at() }));
    await waitFor(() => received.length === 2, { message: 'not pushed to both tokens' });
    const webPush = received.find((r) => r.path === '/web/1')!;
    expect(webPush.headers['content-encoding']).toBe('aes128gcm');
    expect(webPush.body.includes(Buffer.from('FOLLOW'))).toBe(false); // encrypted
    const mobile = received.find((r) => r.path === '/mobile/send')!;
    expect(JSON.parse(mobile.body.toString())).toMatchObject({
      token: 'mobile-2',
      deviceType: 'MOBILE',
      payload: { event: 'NOTIFICATION_CREATED', notification: { type: 'FOLLOW', user: { id: QUIET } } },
    });

    status = 410;
    await publish(createEnvelope(ItemReposted, { userId: QUIET, targetType: 'PLAYLIST', targetId: PLAYLIST, ownerId: OWNER, repostCount: 1, at: at() }));
    await waitFor(async () => (await app.infra.prisma.deviceToken.count({ where: { userId: OWNER } })) === 0, { message: 'rejected tokens not removed' });
    status = 201;
  });
});

describe('NOT-7 WEB tokens from real web clients: PushSubscription (Web Push) or FCM registration token (push provider)', () => {
  const fcmToken = 'eW3bCl1ent:APA91bGq3x_8N2vT-5kLmZpQr7sUvWxYz0aBcDeFgHiJkLmNoPqRsTuVwXyZ_0123456789-abcdefghijklmnopqrstuvwxyzABCDEFGH';
  const subscription = (endpoint: string) => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    return JSON.stringify({ endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } });
  };
  const stored = () =>
    app.infra.prisma.deviceToken.findMany({ orderBy: { id: 'asc' }, select: { token: true, userId: true, deviceType: true, transport: true } });

  it('accepts both WEB kinds and stores the transport each uses; a WEB FCM token is unique like any token', async () => {
    const web = subscription(`${pushUrl}/web/fan`);
    expect((await registerToken(FAN, web, 'WEB')).statusCode).toBe(200);
    expect((await registerToken(FAN, fcmToken, 'WEB')).statusCode).toBe(200);
    expect((await registerToken(FAN, 'mobile-fan', 'MOBILE')).statusCode).toBe(200);
    expect(await stored()).toEqual([
      { token: web, userId: FAN, deviceType: 'WEB', transport: 'WEB_PUSH' },
      { token: fcmToken, userId: FAN, deviceType: 'WEB', transport: 'PROVIDER' },
      { token: 'mobile-fan', userId: FAN, deviceType: 'MOBILE', transport: 'PROVIDER' },
    ]);
    expect((await registerToken(FAN, fcmToken, 'WEB')).json()).toMatchObject({ status: 409, code: 'DEVICE_TOKEN_EXISTS' });
    for (const token of [web, fcmToken, 'mobile-fan']) {
      const res = await app.inject({ method: 'DELETE', url: `/api/users/me/device-tokens?token=${encodeURIComponent(token)}`, headers: as(FAN) });
      expect(res.statusCode).toBe(204);
    }
    expect(await app.infra.prisma.deviceToken.count()).toBe(0);
  });

  it('refuses garbage WEB tokens with 400 VALIDATION_FAILED on `token`, storing nothing', async () => {
    for (const token of [
      '',
      'x'.repeat(4097),
      'fcm token with spaces',
      'fcm\u0000token',
      'fcm\ttoken',
      '"fcm-token"',
      '{not json',
      JSON.stringify({ endpoint: `${pushUrl}/web/x` }),
      JSON.stringify({ endpoint: `${pushUrl}/web/x`, keys: { p256dh: 'not base64!', auth: 'abc' } }),
      subscription('ftp://push.example/x'),
      subscription('not a url'),
    ]) {
      const res = await registerToken(FAN, token, 'WEB');
      expect(res.statusCode, JSON.stringify(token)).toBe(400);
      expect(res.json(), JSON.stringify(token)).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'token' }] });
    }
    expect(await app.infra.prisma.deviceToken.count()).toBe(0);
  });

  it('pushes a WEB FCM token through the push provider and a PushSubscription through Web Push; the provider rejecting the FCM token removes it', async () => {
    expect((await registerToken(OWNER, fcmToken, 'WEB')).statusCode).toBe(200);
    expect((await registerToken(OWNER, subscription(`${pushUrl}/web/owner`), 'WEB')).statusCode).toBe(200);
    const before = received.length;
    await publish(createEnvelope(ItemLiked, { userId: QUIET, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, likeCount: 3, at: at() }));
    await waitFor(() => received.length === before + 2, { message: 'not pushed to both WEB tokens' });
    const sent = received.slice(before);
    const provider = sent.find((r) => r.path === '/mobile/send')!;
    expect(JSON.parse(provider.body.toString())).toMatchObject({
      token: fcmToken,
      deviceType: 'WEB',
      payload: { event: 'NOTIFICATION_CREATED', notification: { type: 'LIKE', user: { id: QUIET } } },
    });
    const webPush = sent.find((r) => r.path === '/web/owner')!;
    expect(webPush.headers['content-encoding']).toBe('aes128gcm');
    expect(String(webPush.headers.authorization)).toMatch(/^vapid t=/);

    // 404 (the provider no longer knows the token; the push service answers the same) drops both.
    status = 404;
    await publish(createEnvelope(ItemReposted, { userId: QUIET, targetType: 'TRACK', targetId: TRACK, ownerId: OWNER, repostCount: 1, at: at() }));
    await waitFor(async () => (await app.infra.prisma.deviceToken.count({ where: { userId: OWNER } })) === 0, { message: 'rejected WEB tokens not removed' });
    status = 201;
    expect(
      received
        .slice(before + 2)
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/mobile/send', '/web/owner']);
  });

  it('documents both WEB kinds on the `token` field in the OpenAPI description', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const body = doc.paths['/api/users/me/device-tokens'].post.requestBody.content['application/json'].schema;
    expect(body.properties.token.description).toMatch(/PushSubscription/);
    expect(body.properties.token.description).toMatch(/FCM/);
  });
});

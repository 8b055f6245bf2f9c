import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationSchema, ErrorResponseSchema, MessageEventSchema, MessageSchema, pageSchema, type MessageEvent } from '@msp/contracts';
import { connectNats, createEnvelope, UserBanned, type NatsConnection } from '@msp/events';
import type { buildApp as buildMessaging } from '@msp/messaging';
import type { buildApp as buildNotification } from '@msp/notification';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';
import { eventually, FleetClient } from './realtime-helpers.js';

const fleet = new Fleet();
let nc: NatsConnection;
const client = new FleetClient(fleet, () => nc);
const call = client.call.bind(client);

const [ALICE, BOB, CAROL, DAVE, ERIN] = [5001, 5002, 5003, 5004, 5005];
const PUBLIC_TRACK = 8001;
const PRIVATE_TRACK = 8002;
let playlistId = 0;

const messagingApp = () => fleet.apps.get('messaging') as Awaited<ReturnType<typeof buildMessaging>>;
const socialApp = () => fleet.apps.get('social') as Awaited<ReturnType<typeof buildSocial>>;
const notificationApp = () => fleet.apps.get('notification') as Awaited<ReturnType<typeof buildNotification>>;
const ConversationPage = pageSchema(ConversationSchema.strict());
const MessagePage = pageSchema(MessageSchema.strict());

function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(ErrorResponseSchema.parse(res.body)).toMatchObject({ status, code });
}

beforeAll(async () => {
  await fleet.start({ RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' });
  nc = await connectNats(fleet.nats.url, 'e2e-messaging');
  for (const [id, name] of [
    [ALICE, 'alice-m'],
    [BOB, 'bob-m'],
    [CAROL, 'carol-m'],
    [DAVE, 'dave-m'],
    [ERIN, 'erin-m'],
  ] as const) {
    await client.registerUser(id, name);
  }
  await eventually(async () => (await messagingApp().infra.prisma.userSummary.count()) === 5, 'messaging did not receive the users');
  await client.createTrack(PUBLIC_TRACK, ALICE, { title: 'Open Song' });
  await client.createTrack(PRIVATE_TRACK, ALICE, { isPrivate: true, title: 'Secret Song' });
  await eventually(async () => (await socialApp().infra.prisma.userSummary.count()) === 5, 'social did not receive the users');
  const created = await call('POST', '/api/playlists', ALICE, { title: 'Shared Mix' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  playlistId = created.body.id as number;
}, 120_000);

afterAll(async () => {
  await client.close();
  await nc?.close();
  await fleet.close();
}, 60_000);

describe('MSG-2 start a thread', () => {
  it('creates the pair conversation once: 201 then 200 with the same id', async () => {
    const first = await call('POST', `/api/conversations/${BOB}/start`, ALICE);
    expect(first.status).toBe(201);
    const conversation = ConversationSchema.strict().parse(first.body);
    expect(conversation).toMatchObject({ conversationId: conversation.id, otherUser: { id: BOB, username: 'bob-m' }, lastMessage: null, unreadCount: 0 });
    expect(conversation.participants.map((p) => p.id).sort()).toEqual([ALICE, BOB]);
    const again = await call('POST', `/api/conversations/${BOB}/start`, ALICE, {});
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(conversation.id);
    // From the other side it is the same conversation.
    const reverse = await call('POST', `/api/conversations/${ALICE}/start`, BOB);
    expect(reverse.status).toBe(200);
    expect(reverse.body).toMatchObject({ id: conversation.id, otherUser: { id: ALICE } });
  });

  it('gives one conversation when both users start it at the same moment', async () => {
    const [a, b] = await Promise.all([call('POST', `/api/conversations/${DAVE}/start`, CAROL), call('POST', `/api/conversations/${CAROL}/start`, DAVE)]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.id).toBe(b.body.id);
    expect(await messagingApp().infra.prisma.conversation.count({ where: { userLowId: CAROL, userHighId: DAVE } })).toBe(1);
  });

  it('answers 400 for oneself or a bad id, 404 for an unknown user, 401 without a token', async () => {
    expectError(await call('POST', `/api/conversations/${ALICE}/start`, ALICE), 400, 'SELF_ACTION_NOT_ALLOWED');
    expectError(await call('POST', '/api/conversations/abc/start', ALICE), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/api/conversations/0/start', ALICE), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/api/conversations/999999/start', ALICE), 404, 'USER_NOT_FOUND');
    expectError(await call('POST', `/api/conversations/${BOB}/start`, ALICE, undefined, { raw: '{bad' }), 400, 'MALFORMED_REQUEST');
    expectError(await call('POST', `/api/conversations/${BOB}/start`), 401, 'UNAUTHORIZED');
  });
});

describe('MSG-4 / WS-4 a message reaches both participants in real time, rendered for each', () => {
  it("delivers MESSAGE_CREATED to both of the recipient's sessions within 1 s, private track null for them", async () => {
    const conversationId = (await call('POST', `/api/conversations/${BOB}/start`, ALICE)).body.id as number;
    const [bobPhone, bobLaptop, alice] = await Promise.all([
      client.stomp(BOB, '/user/queue/messages'),
      client.stomp(BOB, '/user/queue/messages'),
      client.stomp(ALICE, '/user/queue/messages'),
    ]);
    const resources = [
      { resourceType: 'TRACK', resourceId: PUBLIC_TRACK },
      { resourceType: 'TRACK', resourceId: PRIVATE_TRACK },
      { resourceType: 'PLAYLIST', resourceId: playlistId },
    ];
    const sent = await call('POST', `/api/conversations/${conversationId}/messages`, ALICE, { body: '  listen to these  ', resources });
    const answeredAt = Date.now();
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const mine = MessageSchema.strict().parse(sent.body);
    // The sender sees their own private track.
    expect(mine).toMatchObject({
      messageId: mine.id,
      conversationId,
      senderId: ALICE,
      content: 'listen to these',
      resourceType: 'TRACK',
      resourceId: PUBLIC_TRACK,
      isRead: false,
    });
    expect(mine.resources.map((r) => [r.track?.id ?? r.playlist?.id ?? null])).toEqual([[PUBLIC_TRACK], [PRIVATE_TRACK], [playlistId]]);

    for (const session of [bobPhone, bobLaptop]) {
      await eventually(() => session.received.length >= 1, 'MESSAGE_CREATED not delivered to a recipient session', 2000);
      const first = session.received[0]!;
      expect(first.at - answeredAt).toBeLessThan(1000);
      const event = MessageEventSchema.strict().parse(first.body);
      expect(event).toMatchObject({ event: 'MESSAGE_CREATED', conversationId, readerId: null, readAt: null });
      const message = MessageSchema.strict().parse(event.message);
      expect(message.id).toBe(mine.id);
      expect(message.resources[0]).toMatchObject({
        resourceType: 'TRACK',
        resourceId: PUBLIC_TRACK,
        track: { id: PUBLIC_TRACK, title: 'Open Song' },
        playlist: null,
      });
      expect(message.resources[1]).toEqual({ resourceType: 'TRACK', resourceId: PRIVATE_TRACK, track: null, playlist: null });
      expect(message.resources[2]).toMatchObject({
        resourceType: 'PLAYLIST',
        resourceId: playlistId,
        track: null,
        playlist: { id: playlistId, title: 'Shared Mix' },
      });
    }
    // The sender's own sessions get their rendering too.
    await eventually(() => alice.received.length >= 1, 'MESSAGE_CREATED not delivered to the sender', 2000);
    expect((alice.received[0]!.body as MessageEvent).message?.resources[1]?.track?.id).toBe(PRIVATE_TRACK);

    // MSG-1: one unread message for Bob, none for Alice, with the last message.
    const bobList = ConversationPage.parse((await call('GET', '/api/conversations', BOB)).body);
    expect(bobList.content.find((c) => c.id === conversationId)).toMatchObject({
      unreadCount: 1,
      lastMessage: { content: 'listen to these', senderId: ALICE },
      otherUser: { id: ALICE },
    });
    const aliceList = ConversationPage.parse((await call('GET', '/api/conversations', ALICE)).body);
    expect(aliceList.content[0]).toMatchObject({ id: conversationId, unreadCount: 0 });

    // MSG-3 by Bob marks it read and tells Alice on WS-4.
    const page = await call('GET', `/api/conversations/${conversationId}/messages`, BOB);
    expect(page.status).toBe(200);
    const messages = MessagePage.parse(page.body);
    expect(messages).toMatchObject({ totalElements: 1, content: [{ id: mine.id, isRead: true }] });
    expect(messages.content[0]!.resources[1]!.track).toBeNull();
    await eventually(() => alice.received.find((r) => (r.body as MessageEvent).event === 'MESSAGES_READ'), 'MESSAGES_READ not delivered to the sender', 2000);
    const read = MessageEventSchema.strict().parse(alice.received.find((r) => (r.body as MessageEvent).event === 'MESSAGES_READ')!.body);
    expect(read).toMatchObject({ event: 'MESSAGES_READ', conversationId, message: null, readerId: BOB, readAt: expect.any(String) });
    expect(ConversationPage.parse((await call('GET', '/api/conversations', BOB)).body).content.find((c) => c.id === conversationId)?.unreadCount).toBe(0);
  });

  it('lists conversations by latest activity', async () => {
    const withCarol = (await call('POST', `/api/conversations/${CAROL}/start`, ALICE)).body.id as number;
    const withBob = (await call('POST', `/api/conversations/${BOB}/start`, ALICE)).body.id as number;
    expect((await call('POST', `/api/conversations/${withCarol}/messages`, CAROL, { content: 'hi alice' })).status).toBe(201);
    let list = ConversationPage.parse((await call('GET', '/api/conversations', ALICE)).body);
    expect(list.content.map((c) => c.id).slice(0, 2)).toEqual([withCarol, withBob]);
    expect((await call('POST', `/api/conversations/${withBob}/messages`, BOB, { body: 'thanks' })).status).toBe(201);
    list = ConversationPage.parse((await call('GET', '/api/conversations', ALICE)).body);
    expect(list.content.map((c) => c.id).slice(0, 2)).toEqual([withBob, withCarol]);
  });

  it('answers 404 CONVERSATION_NOT_FOUND to a third user', async () => {
    const conversationId = (await call('POST', `/api/conversations/${BOB}/start`, ALICE)).body.id as number;
    expectError(await call('GET', `/api/conversations/${conversationId}/messages`, ERIN), 404, 'CONVERSATION_NOT_FOUND');
    expectError(await call('POST', `/api/conversations/${conversationId}/messages`, ERIN, { body: 'let me in' }), 404, 'CONVERSATION_NOT_FOUND');
    expectError(await call('GET', '/api/conversations/987654/messages', ERIN), 404, 'CONVERSATION_NOT_FOUND');
  });

  it('answers 400 for a blank body without resources, 6 resources and other bad input', async () => {
    const conversationId = (await call('POST', `/api/conversations/${BOB}/start`, ALICE)).body.id as number;
    const send = (body: unknown, raw?: string) => call('POST', `/api/conversations/${conversationId}/messages`, ALICE, body, { raw });
    expectError(await send({ body: '   ' }), 400, 'VALIDATION_FAILED');
    expectError(await send({}), 400, 'VALIDATION_FAILED');
    const six = Array.from({ length: 6 }, () => ({ resourceType: 'TRACK', resourceId: PUBLIC_TRACK }));
    const tooMany = await send({ body: 'six', resources: six });
    expectError(tooMany, 400, 'VALIDATION_FAILED');
    expect(tooMany.body.errors.map((e: { field: string }) => e.field)).toContain('resources');
    expectError(await send({ body: 'x'.repeat(2001) }), 400, 'VALIDATION_FAILED');
    expectError(await send({ body: 'x', resources: [{ resourceType: 'USER', resourceId: BOB }] }), 400, 'VALIDATION_FAILED');
    expectError(await send({ body: 'x', resources: [{ resourceType: 'TRACK', resourceId: -3 }] }), 400, 'VALIDATION_FAILED');
    expectError(await send({ body: 'x', resourceType: 'TRACK' }), 400, 'VALIDATION_FAILED');
    expectError(await send({ body: 42 }), 400, 'VALIDATION_FAILED');
    expectError(await send(undefined, '{"body":'), 400, 'MALFORMED_REQUEST');
    expectError(await call('POST', '/api/conversations/xyz/messages', ALICE, { body: 'hi' }), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', `/api/conversations/${conversationId}/messages?size=0`, ALICE), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', `/api/conversations/${conversationId}/messages?page=-1`, ALICE), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/api/conversations?size=101', ALICE), 400, 'VALIDATION_FAILED');
    // A resource the sender cannot see.
    expectError(
      await call('POST', `/api/conversations/${conversationId}/messages`, BOB, { resources: [{ resourceType: 'TRACK', resourceId: PRIVATE_TRACK }] }),
      404,
      'TRACK_NOT_FOUND',
    );
    expectError(await send({ resources: [{ resourceType: 'PLAYLIST', resourceId: 999999 }] }), 404, 'PLAYLIST_NOT_FOUND');
    // A single legacy resource is accepted with an empty body.
    const legacy = await send({ resourceType: 'TRACK', resourceId: PUBLIC_TRACK });
    expect(legacy.status).toBe(201);
    expect(legacy.body).toMatchObject({ content: '', resourceType: 'TRACK', resourceId: PUBLIC_TRACK });
  });
});

describe('MSG-2 / MSG-4 across a block (R7)', () => {
  it('answers 403 USER_BLOCKED to both participants of an existing conversation, and again works after unblocking', async () => {
    const conversationId = (await call('POST', `/api/conversations/${DAVE}/start`, CAROL)).body.id as number;
    expect((await call('POST', `/api/users/${DAVE}/block`, CAROL)).status).toBe(200);
    // Messaging's copy of the block follows social's event within about a second.
    await eventually(
      async () => (await call('POST', `/api/conversations/${conversationId}/messages`, CAROL, { body: 'hello?' })).status === 403,
      'block not applied to MSG-4',
    );
    expectError(await call('POST', `/api/conversations/${conversationId}/messages`, CAROL, { body: 'hello?' }), 403, 'USER_BLOCKED');
    expectError(await call('POST', `/api/conversations/${conversationId}/messages`, DAVE, { body: 'hello?' }), 403, 'USER_BLOCKED');
    // MSG-2: the blocker is told USER_BLOCKED; for the blocked user the blocker has disappeared (R7).
    expectError(await call('POST', `/api/conversations/${DAVE}/start`, CAROL), 403, 'USER_BLOCKED');
    expectError(await call('POST', `/api/conversations/${CAROL}/start`, DAVE), 404, 'USER_NOT_FOUND');

    expect((await call('DELETE', `/api/users/${DAVE}/block`, CAROL)).status).toBe(204);
    await eventually(
      async () => (await call('POST', `/api/conversations/${conversationId}/messages`, DAVE, { body: 'back' })).status === 201,
      'unblock not applied',
    );
  });
});

describe('MSG-1 / NOT-1 R14 a banned user disappears from messaging', () => {
  it("hides the banned user's conversations from the partner (MSG-1, MSG-3, MSG-4, MSG-2)", async () => {
    const conversationId = (await call('POST', `/api/conversations/${ERIN}/start`, BOB)).body.id as number;
    expect((await call('POST', `/api/conversations/${conversationId}/messages`, ERIN, { body: 'buy cheap followers' })).status).toBe(201);
    await client.publish(createEnvelope(UserBanned, { userId: ERIN, reason: 'spam', bannedAt: new Date().toISOString() }));
    await eventually(
      async () => !ConversationPage.parse((await call('GET', '/api/conversations', BOB)).body).content.some((c) => c.id === conversationId),
      'conversation still listed',
    );
    expectError(await call('GET', `/api/conversations/${conversationId}/messages`, BOB), 404, 'CONVERSATION_NOT_FOUND');
    expectError(await call('POST', `/api/conversations/${ERIN}/start`, BOB), 404, 'USER_NOT_FOUND');
    // Its DM notification to Bob disappears too.
    await eventually(
      async () => (await notificationApp().infra.prisma.bannedUser.count({ where: { userId: ERIN } })) === 1,
      'notification did not see the ban',
    );
    const notifications = await call('GET', '/api/notifications', BOB);
    expect(notifications.body.content.some((n: { user: { id: number } }) => n.user.id === ERIN)).toBe(false);
  });
});

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ConversationSchema, ErrorResponseSchema, pageSchema } from '@msp/contracts';
import { createEnvelope, UserRegistered, UserTierChanged, UserUpdated, type EventEnvelope } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMessagingConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const ConversationPage = pageSchema(ConversationSchema.strict());

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: `${envelope.id}-${Math.random()}` });
}

function registered(userId: number, username: string) {
  return createEnvelope(UserRegistered, {
    userId,
    username,
    displayName: username.toUpperCase(),
    avatarUrl: null,
    tier: 'FREE',
    role: 'LISTENER',
    isPrivate: false,
    createdAt: new Date().toISOString(),
  });
}

function conversations(userId?: number, query = '') {
  return app.inject({
    method: 'GET',
    url: `/api/conversations${query}`,
    headers: userId === undefined ? {} : { 'x-user-id': String(userId) },
  });
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

beforeAll(async () => {
  env = await startServiceTestEnv('messaging', migrations);
  app = await buildApp(loadMessagingConfig(env.env), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('messaging service foundation', () => {
  it('answers /health and reports every dependency up on /ready', async () => {
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'up', service: 'messaging' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ database: 'up', nats: 'up', redis: 'up', storage: 'up' });
  });

  it('owns the MESSAGING stream for messaging.> subjects', async () => {
    const info = await (await jetstreamManager(app.infra.nc)).streams.info('MESSAGING');
    expect(info.config.subjects).toEqual(['messaging.>']);
  });
});

describe('messaging user projection from identity events', () => {
  it('creates the user summary once, even when the same event is delivered twice', async () => {
    const event = registered(11, 'zoe');
    await publish(event);
    await publish(event);
    const row = await waitFor(() => app.infra.prisma.userSummary.findUnique({ where: { userId: 11 } }).then((r) => r ?? undefined), {
      message: 'projection did not catch up',
    });
    expect(row).toMatchObject({ username: 'zoe', displayName: 'ZOE', tier: 'FREE', isDeleted: false });
    expect(await app.infra.prisma.processedEvent.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('applies renames and tier changes', async () => {
    await publish(
      createEnvelope(UserUpdated, {
        userId: 11,
        username: 'zoey',
        displayName: 'Zoey',
        avatarUrl: 'https://cdn.example/z.png',
        tier: 'FREE',
        role: 'ARTIST',
        isPrivate: true,
      }),
    );
    await publish(createEnvelope(UserTierChanged, { userId: 11, tier: 'PRO' }));
    const row = await waitFor(async () => {
      const r = await app.infra.prisma.userSummary.findUnique({ where: { userId: 11 } });
      return r?.tier === 'PRO' ? r : undefined;
    });
    expect(row).toMatchObject({ username: 'zoey', displayName: 'Zoey', avatarUrl: 'https://cdn.example/z.png' });
  });
});

describe('MSG-1 list direct-message threads', () => {
  let withBob: number;
  let withCarol: number;
  let empty: number;

  beforeAll(async () => {
    for (const [id, name] of [
      [21, 'alice'],
      [22, 'bob'],
      [23, 'carol'],
      [24, 'dave'],
    ] as const)
      await publish(registered(id, name));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: { in: [21, 22, 23, 24] } } })) === 4, {
      message: 'projection did not catch up',
    });
    const db = app.infra.prisma;
    // alice–bob: older activity, two unread messages from bob, one read, one of alice's own.
    withBob = (await db.conversation.create({ data: { userLowId: 21, userHighId: 22, createdAt: at(0), lastMessageAt: at(10) } })).id;
    await db.message.createMany({
      data: [
        { conversationId: withBob, senderId: 22, content: 'hi alice', createdAt: at(1), readAt: at(2) },
        { conversationId: withBob, senderId: 21, content: 'hey bob', createdAt: at(3) },
        { conversationId: withBob, senderId: 22, content: 'new track?', createdAt: at(8) },
        { conversationId: withBob, senderId: 22, content: 'listen!', createdAt: at(10) },
      ],
    });
    // alice–carol: latest activity; alice wrote last, carol's message is read.
    withCarol = (await db.conversation.create({ data: { userLowId: 21, userHighId: 23, createdAt: at(5), lastMessageAt: at(20) } })).id;
    await db.message.createMany({
      data: [
        { conversationId: withCarol, senderId: 23, content: 'ping', createdAt: at(15), readAt: at(16) },
        { conversationId: withCarol, senderId: 21, content: 'pong', createdAt: at(20) },
      ],
    });
    // bob–dave: not alice's, must never show up for her.
    const other = await db.conversation.create({ data: { userLowId: 22, userHighId: 24, createdAt: at(30), lastMessageAt: at(31) } });
    await db.message.create({ data: { conversationId: other.id, senderId: 24, content: 'yo', createdAt: at(31) } });
    // dave–alice started without messages yet: its activity is its creation (between the two above).
    empty = (await db.conversation.create({ data: { userLowId: 21, userHighId: 24, createdAt: at(12) } })).id;
  });

  it('answers 401 UNAUTHORIZED without a caller, before validating the query', async () => {
    for (const query of ['', '?size=0']) {
      const res = await conversations(undefined, query);
      expect(res.statusCode).toBe(401);
      expect(ErrorResponseSchema.parse(res.json())).toMatchObject({ code: 'UNAUTHORIZED', path: '/api/conversations' });
    }
  });

  it('answers an empty page to a user without conversations', async () => {
    const res = await conversations(99);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ content: [], pageNumber: 0, pageSize: 20, totalElements: 0, totalPages: 0, isLast: true });
  });

  it("lists the caller's conversations, latest activity first, with the partner, last message and unread count", async () => {
    const res = await conversations(21);
    expect(res.statusCode).toBe(200);
    const page = ConversationPage.parse(res.json());
    expect(page).toMatchObject({ pageNumber: 0, pageSize: 20, totalElements: 3, totalPages: 1, isLast: true });
    expect(page.content.map((c) => c.id)).toEqual([withCarol, empty, withBob]);

    const [carol, dave, bob] = page.content;
    expect(bob).toEqual({
      id: withBob,
      conversationId: withBob,
      participants: [
        { id: 21, username: 'alice', displayName: 'ALICE', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 0 },
        { id: 22, username: 'bob', displayName: 'BOB', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 0 },
      ],
      otherUser: { id: 22, username: 'bob', displayName: 'BOB', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 0 },
      lastMessage: { content: 'listen!', senderId: 22, createdAt: at(10).toISOString() },
      lastMessageAt: at(10).toISOString(),
      unreadCount: 2,
      createdAt: at(0).toISOString(),
    });
    expect(carol).toMatchObject({
      otherUser: { id: 23, username: 'carol' },
      lastMessage: { content: 'pong', senderId: 21, createdAt: at(20).toISOString() },
      unreadCount: 0,
    });
    expect(dave).toMatchObject({ otherUser: { id: 24 }, lastMessage: null, lastMessageAt: null, unreadCount: 0 });
  });

  it("counts unread messages from the caller's side only", async () => {
    const page = ConversationPage.parse((await conversations(22)).json());
    expect(page.content.map((c) => c.otherUser.username)).toEqual(['dave', 'alice']);
    const alice = page.content.find((c) => c.id === withBob);
    expect(alice?.unreadCount).toBe(1); // "hey bob" from alice is unread by bob
    expect(page.content[0]?.unreadCount).toBe(1);
  });

  it('uses the same number of database queries whatever the page size', async () => {
    const spy = vi.spyOn(app.infra.pool, 'query');
    try {
      await conversations(21, '?size=1');
      const one = spy.mock.calls.length;
      spy.mockClear();
      await conversations(21, '?size=3');
      expect(spy.mock.calls.length).toBe(one);
      expect(one).toBeGreaterThan(0);
      expect(one).toBeLessThanOrEqual(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('pages with the Page wrapper, past the end included', async () => {
    const second = ConversationPage.parse((await conversations(21, '?page=1&size=2')).json());
    expect(second).toMatchObject({ pageNumber: 1, pageSize: 2, totalElements: 3, totalPages: 2, isLast: true });
    expect(second.content.map((c) => c.id)).toEqual([withBob]);
    const past = (await conversations(21, '?page=5&size=2')).json();
    expect(past).toEqual({ content: [], pageNumber: 5, pageSize: 2, totalElements: 3, totalPages: 2, isLast: true });
  });

  it('answers 400 VALIDATION_FAILED for bad paging', async () => {
    for (const query of ['size=0', 'size=101', 'page=-1', 'size=abc', 'page=1.5']) {
      const res = await conversations(21, `?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(query.split('=')[0]);
    }
  });
});

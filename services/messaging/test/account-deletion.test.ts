import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ConversationSchema, MAX_ID, MessageSchema, pageSchema } from '@msp/contracts';
import { createEnvelope, UserBanned, UserDeleted, UserDeletionCancelled, UserDeletionScheduled, type EventDefinition } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMessagingConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const MessagePage = pageSchema(MessageSchema.strict());
const ConversationPage = pageSchema(ConversationSchema.strict());

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
const D = 9501, // deletes their account
  A = 9502,
  B = 9503,
  E = 9504; // also deleted: the conversation D–E goes entirely

const as = (userId: number) => ({ 'x-user-id': String(userId), 'x-user-role': 'LISTENER' });
const start = (caller: number, userId: number) => app.inject({ method: 'POST', url: `/api/conversations/${userId}/start`, headers: as(caller) });
const send = (caller: number, conversationId: number, body: string) =>
  app.inject({ method: 'POST', url: `/api/conversations/${conversationId}/messages`, headers: as(caller), payload: { body } });
const conversations = async (caller: number) =>
  ConversationPage.parse((await app.inject({ method: 'GET', url: '/api/conversations', headers: as(caller) })).json()).content;

async function publish<T>(def: EventDefinition<T>, data: T, consumer = 'messaging--user-deletion') {
  const envelope = createEnvelope(def, data);
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  await waitFor(async () => (await app.infra.prisma.processedEvent.count({ where: { eventId: envelope.id, consumer } })) > 0, {
    timeoutMs: 30_000,
    message: `${def.type} not processed`,
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

let withA = 0;
let withE = 0;

beforeAll(async () => {
  env = await startServiceTestEnv('messaging_account_deletion', migrations);
  app = await buildApp(loadMessagingConfig({ ...env.env, CATALOG_URL: 'http://127.0.0.1:9' }), { logger: false });
  await app.ready();
  await app.infra.prisma.userSummary.createMany({
    data: [D, A, B, E].map((userId) => ({ userId, username: `u${userId}`, displayName: `U${userId}` })),
  });
  await app.infra.prisma.follow.createMany({
    data: [
      { followerId: A, followeeId: D },
      { followerId: D, followeeId: B },
    ],
  });
  await app.infra.prisma.block.create({ data: { blockerId: D, blockedId: B } });
  withA = (ConversationSchema.parse((await start(A, D)).json()) as { id: number }).id;
  withE = (ConversationSchema.parse((await start(E, D)).json()) as { id: number }).id;
  for (const [who, id, body] of [
    [A, withA, 'hi dora'],
    [D, withA, 'hi abel'],
    [D, withA, 'unread by abel'],
    [E, withE, 'hey'],
    [D, withE, 'ho'],
  ] as const) {
    const res = await send(who, id, body);
    expect(res.statusCode, res.body).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('ACC-3 / ACC-4 deletion scheduled and cancelled in messaging', () => {
  it('the scheduling hides the conversation from the other party as a ban does; the cancellation shows it again', async () => {
    expect((await conversations(A)).map((c) => c.id)).toEqual([withA]);
    await publish(UserDeletionScheduled, { userId: D, deleteAt: new Date(Date.now() + 60_000).toISOString() });
    expect(await conversations(A)).toEqual([]);
    await publish(UserDeletionCancelled, { userId: D });
    expect((await conversations(A)).map((c) => c.id)).toEqual([withA]);
  });

  it('a ban outlives a cancelled deletion', async () => {
    await publish(UserBanned, { userId: B, reason: null, bannedAt: new Date().toISOString() }, 'messaging--bans');
    await publish(UserDeletionScheduled, { userId: B, deleteAt: new Date().toISOString() });
    await publish(UserDeletionCancelled, { userId: B });
    expect(await app.infra.prisma.bannedUser.findUnique({ where: { userId: B } })).toMatchObject({ isBanned: true, deletionPending: false });
  });
});

describe('ACC-5 user deleted (identity.user.deleted.v1) in messaging', () => {
  it('the other party keeps the conversation, with the deleted user as "Deleted user"; no row carries their id', async () => {
    await publish(UserDeleted, { userId: D });
    await publish(UserDeleted, { userId: E });
    expect(await rowsCarrying(D)).toEqual({});
    expect(await rowsCarrying(E)).toEqual({});
    // Published MessageSent events render the sender (username): those naming them went.
    const named = await app.infra.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM outbox_event WHERE payload::text LIKE '%"u${D}"%' OR payload::text LIKE '%"u${E}"%'`,
    );
    expect(named[0]?.n).toBe(0);
    expect(await app.infra.prisma.outboxEvent.count({ where: { type: 'messaging.message.sent.v1' } })).toBe(0);

    const [conversation] = await conversations(A);
    expect(conversation).toMatchObject({
      id: withA,
      otherUser: { id: MAX_ID, username: 'deleted-user', displayName: 'Deleted user' },
      lastMessage: { content: 'unread by abel', senderId: MAX_ID },
      unreadCount: 2,
    });
    const page = MessagePage.parse((await app.inject({ method: 'GET', url: `/api/conversations/${withA}/messages`, headers: as(A) })).json());
    expect(page.content.map((m) => [m.content, m.sender.displayName])).toEqual([
      ['unread by abel', 'Deleted user'],
      ['hi abel', 'Deleted user'],
      ['hi dora', 'U9502'],
    ]);
    // Reading marked the deleted user's messages read.
    expect((await conversations(A))[0]!.unreadCount).toBe(0);
    // Both participants of D–E are gone: the conversation and its messages went.
    expect(await app.infra.prisma.conversation.count({ where: { id: withE } })).toBe(0);
    expect(await app.infra.prisma.message.count({ where: { conversationId: withE } })).toBe(0);
  });

  it('MSG-4 into it answers 404 USER_NOT_FOUND; the deletion event again changes nothing', async () => {
    const res = await send(A, withA, 'still there?');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'USER_NOT_FOUND' });
    await publish(UserDeleted, { userId: D });
    expect(await app.infra.prisma.message.count({ where: { conversationId: withA } })).toBe(3);
  });
});

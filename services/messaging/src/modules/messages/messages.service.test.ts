import { describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { CatalogUnavailableError, type CatalogClient } from '@msp/runtime';
import { outboxRecorder } from '@msp/testing/fakes';
import type { Prisma } from '../../generated/prisma/client.js';
import type { ConversationRef, ConversationsStore } from '../conversations/conversations.repository.js';
import type { MessageRow, MessagesStore, StoredResource } from './messages.repository.js';
import { MessagesService, normaliseSendInput } from './messages.service.js';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).errors?.[0]?.field;
  }
  throw new Error('expected a validation error');
};

describe('MSG-4 input rules (R16)', () => {
  it('trims the body and accepts `content` as its alias', () => {
    expect(normaliseSendInput({ body: '  hi  ' })).toEqual({ content: 'hi', resources: [] });
    expect(normaliseSendInput({ content: 'yo' })).toEqual({ content: 'yo', resources: [] });
  });

  it('accepts an empty body with resources, the single pair first', () => {
    expect(normaliseSendInput({ resources: [{ resourceType: 'PLAYLIST', resourceId: 2 }], resourceType: 'TRACK', resourceId: 1 })).toEqual({
      content: '',
      resources: [
        { resourceType: 'TRACK', resourceId: 1 },
        { resourceType: 'PLAYLIST', resourceId: 2 },
      ],
    });
  });

  it('refuses a blank body without resources, > 2000 chars, > 5 resources and a half pair', () => {
    expect(fieldOf(() => normaliseSendInput({ body: '   ' }))).toBe('body');
    expect(fieldOf(() => normaliseSendInput({ body: 'x'.repeat(2001) }))).toBe('body');
    expect(normaliseSendInput({ body: ` ${'x'.repeat(2000)} ` }).content).toHaveLength(2000);
    const five = Array.from({ length: 5 }, (_, i) => ({ resourceType: 'TRACK' as const, resourceId: i + 1 }));
    expect(fieldOf(() => normaliseSendInput({ resources: five, resourceType: 'TRACK', resourceId: 99 }))).toBe('resources');
    expect(fieldOf(() => normaliseSendInput({ body: 'x', resourceId: 1 }))).toBe('resourceType');
  });
});

const ANN: Caller = { userId: 1, role: 'LISTENER', tier: 'FREE', sessionId: 's', username: 'ann' };
const BOB = 2;
const CONVERSATION = 10;

const messageRow = (id: number, senderId: number | null, resources: StoredResource[] = []): MessageRow => ({
  id,
  conversationId: CONVERSATION,
  senderId,
  content: `message ${id}`,
  resources: resources as unknown as Prisma.JsonValue,
  readAt: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
});

type Catalog = Pick<CatalogClient, 'tracks' | 'playlists'>;
const emptyCatalog: Catalog = { tracks: () => Promise.resolve(new Map()), playlists: () => Promise.resolve(new Map()) };
const downCatalog: Catalog = {
  tracks: () => Promise.reject(new CatalogUnavailableError()),
  playlists: () => Promise.reject(new CatalogUnavailableError()),
};

/** Fakes of both stores: one conversation (ANN and `partner`), blocks, stored rows, unread count. */
function setup(
  opts: { partner?: number | null; mine?: boolean; blocks?: { aBlockedB: boolean; bBlockedA: boolean }; unread?: number; rows?: MessageRow[] } = {},
) {
  const outbox = outboxRecorder();
  const inserted: Array<{ content: string; resources: StoredResource[] }> = [];
  const partner = opts.partner === undefined ? BOB : opts.partner;
  const ref: ConversationRef = { id: CONVERSATION, userLowId: ANN.userId, userHighId: partner };
  const tx = outbox.tx as unknown as Prisma.TransactionClient;
  const messages: MessagesStore = {
    transaction: (work) => work(tx),
    page: () => Promise.resolve({ rows: opts.rows ?? [], total: opts.rows?.length ?? 0 }),
    markRead: () => Promise.resolve(opts.unread ?? 0),
    insert: (_tx, input) => {
      inserted.push({ content: input.content, resources: input.resources });
      return Promise.resolve(messageRow(99, input.senderId, input.resources));
    },
  };
  const conversations: ConversationsStore = {
    listFor: () => Promise.reject(new Error('not used')),
    oneFor: () => Promise.reject(new Error('not used')),
    startPair: () => Promise.reject(new Error('not used')),
    reachableUser: () => Promise.reject(new Error('not used')),
    refFor: (userId, id) => Promise.resolve(opts.mine === false || id !== CONVERSATION ? null : ref),
    users: () => Promise.resolve(new Map()),
    blocksBetween: () => Promise.resolve(opts.blocks ?? { aBlockedB: false, bBlockedA: false }),
  };
  return { outbox, inserted, make: (catalog: Catalog = emptyCatalog) => new MessagesService(messages, conversations, catalog) };
}

describe('MSG-4 send a message (R16, R7, R14)', () => {
  it('stores the trimmed body and writes messaging.message.sent.v1 with a rendering for each participant', async () => {
    const { outbox, inserted, make } = setup();
    const message = await make().send(ANN, CONVERSATION, { body: '  hello  ' });
    expect(message).toMatchObject({ messageId: 99, senderId: ANN.userId, isRead: false });
    expect(inserted).toEqual([{ content: 'hello', resources: [] }]);
    expect(outbox.types()).toEqual(['messaging.message.sent.v1']);
    const data = outbox.events[0]?.data as { recipientId: number; renderings: Record<string, unknown> };
    expect(data.recipientId).toBe(BOB);
    expect(Object.keys(data.renderings).sort()).toEqual(['1', '2']);
  });

  it('answers CONVERSATION_NOT_FOUND for a conversation the caller is not part of (or whose partner is banned)', async () => {
    const { outbox, make } = setup({ mine: false });
    await expect(make().send(ANN, CONVERSATION, { body: 'hi' })).rejects.toMatchObject({ code: 'CONVERSATION_NOT_FOUND' });
    expect(outbox.events).toEqual([]);
  });

  it('answers USER_NOT_FOUND when the partner deleted their account (ACC-5)', async () => {
    await expect(setup({ partner: null }).make().send(ANN, CONVERSATION, { body: 'hi' })).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('answers USER_BLOCKED across a block in either direction', async () => {
    for (const blocks of [
      { aBlockedB: true, bBlockedA: false },
      { aBlockedB: false, bBlockedA: true },
    ]) {
      const { inserted, make } = setup({ blocks });
      await expect(make().send(ANN, CONVERSATION, { body: 'hi' })).rejects.toMatchObject({ code: 'USER_BLOCKED' });
      expect(inserted).toEqual([]);
    }
  });

  it('answers TRACK_NOT_FOUND / PLAYLIST_NOT_FOUND for a resource the sender cannot see', async () => {
    await expect(
      setup()
        .make()
        .send(ANN, CONVERSATION, { resources: [{ resourceType: 'TRACK', resourceId: 5 }] }),
    ).rejects.toMatchObject({
      code: 'TRACK_NOT_FOUND',
    });
    await expect(
      setup()
        .make()
        .send(ANN, CONVERSATION, { resources: [{ resourceType: 'PLAYLIST', resourceId: 6 }] }),
    ).rejects.toMatchObject({
      code: 'PLAYLIST_NOT_FOUND',
    });
  });

  it('fails closed with SERVICE_UNAVAILABLE when catalog cannot check a shared resource, storing nothing', async () => {
    const { outbox, inserted, make } = setup();
    await expect(make(downCatalog).send(ANN, CONVERSATION, { resources: [{ resourceType: 'TRACK', resourceId: 5 }] })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(inserted).toEqual([]);
    expect(outbox.events).toEqual([]);
  });

  it('validates the input before looking the conversation up', async () => {
    const { make } = setup({ mine: false });
    await expect(make().send(ANN, CONVERSATION, { body: '   ' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('MSG-3 read a conversation', () => {
  it("marks the partner's messages read and tells both participants only when something changed", async () => {
    const changed = setup({ unread: 2 });
    await changed.make().list(ANN, CONVERSATION, 0, 20);
    expect(changed.outbox.types()).toEqual(['messaging.conversation.read.v1']);
    expect(changed.outbox.events[0]?.data).toMatchObject({ conversationId: CONVERSATION, readerId: ANN.userId, partnerId: BOB });

    const unchanged = setup({ unread: 0 });
    await unchanged.make().list(ANN, CONVERSATION, 0, 20);
    expect(unchanged.outbox.events).toEqual([]);
  });

  it('tells no one when the partner deleted their account (ACC-5)', async () => {
    const { outbox, make } = setup({ partner: null, unread: 3 });
    await make().list(ANN, CONVERSATION, 0, 20);
    expect(outbox.events).toEqual([]);
  });

  it('answers CONVERSATION_NOT_FOUND to a non-participant', async () => {
    await expect(setup({ mine: false }).make().list(ANN, CONVERSATION, 0, 20)).rejects.toMatchObject({ code: 'CONVERSATION_NOT_FOUND' });
  });

  it('still answers when catalog is down, every shared resource null', async () => {
    const rows = [messageRow(1, BOB, [{ resourceType: 'TRACK', resourceId: 5 }]), messageRow(2, null)];
    const page = await setup({ rows }).make(downCatalog).list(ANN, CONVERSATION, 0, 20);
    expect(page.content.map((m) => m.resources)).toEqual([[{ resourceType: 'TRACK', resourceId: 5, track: null, playlist: null }], []]);
    expect(page.content[1]?.sender.displayName).toBe('Deleted user');
  });
});

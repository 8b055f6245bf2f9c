import { describe, expect, it } from 'vitest';
import type { UserRow } from '../users/user-rows.js';
import type { ConversationListRow, ConversationsStore } from './conversations.repository.js';
import { ConversationsService } from './conversations.service.js';

const ANN = 1;
const BOB = 2;

const user = (userId: number, followedBy: number[] = []): UserRow => ({
  userId,
  username: `u${userId}`,
  displayName: `User ${userId}`,
  avatarUrl: null,
  tier: 'FREE',
  followerCount: 0,
  trackCount: 0,
  followedBy,
});

const listRow = (id: number, low: number | null, high: number | null): ConversationListRow => ({
  id,
  userLowId: low,
  userHighId: high,
  lastMessageAt: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  lastContent: null,
  lastSenderId: null,
  lastCreatedAt: null,
  unreadCount: 0,
});

/** An in-memory store: who exists, who blocked whom, which pairs already have a conversation. */
function fakeStore(opts: { reachable?: number[]; blocks?: Array<[number, number]>; existing?: Array<[number, number]> } = {}) {
  const reachable = new Set(opts.reachable ?? [ANN, BOB]);
  const blocks = opts.blocks ?? [];
  const pairs = new Map<string, number>((opts.existing ?? []).map(([a, b], i) => [`${Math.min(a, b)}:${Math.max(a, b)}`, i + 1]));
  const calls = { users: 0, startPair: 0 };
  const store: ConversationsStore = {
    listFor: (userId) => {
      const rows = [...pairs.entries()]
        .map(([key, id]) => {
          const [low, high] = key.split(':').map(Number) as [number, number];
          return listRow(id, low, high);
        })
        .filter((row) => row.userLowId === userId || row.userHighId === userId);
      return Promise.resolve({ rows, total: rows.length });
    },
    oneFor: (userId, id) => {
      const entry = [...pairs.entries()].find(([, pairId]) => pairId === id);
      if (!entry) return Promise.resolve(null);
      const [low, high] = entry[0].split(':').map(Number) as [number, number];
      return Promise.resolve(low === userId || high === userId ? listRow(id, low, high) : null);
    },
    refFor: () => Promise.reject(new Error('not used')),
    startPair: (a, b) => {
      calls.startPair += 1;
      const key = `${Math.min(a, b)}:${Math.max(a, b)}`;
      const found = pairs.get(key);
      if (found !== undefined) return Promise.resolve({ id: found, created: false });
      const id = pairs.size + 1;
      pairs.set(key, id);
      return Promise.resolve({ id, created: true });
    },
    users: (ids, viewerIds) => {
      calls.users += 1;
      const present = ids.filter((id): id is number => id !== null && reachable.has(id));
      return Promise.resolve(new Map(present.map((id) => [id, user(id, id === BOB ? [...viewerIds] : [])])));
    },
    reachableUser: (userId) => Promise.resolve(reachable.has(userId)),
    blocksBetween: (a, b) =>
      Promise.resolve({
        aBlockedB: blocks.some(([x, y]) => x === a && y === b),
        bBlockedA: blocks.some(([x, y]) => x === b && y === a),
      }),
  };
  return { store, calls };
}

describe('MSG-2 start a conversation (R16, R7, R14)', () => {
  it('creates the pair once (201), then returns the same conversation (200) from either side', async () => {
    const { store, calls } = fakeStore();
    const service = new ConversationsService(store);
    const first = await service.start(ANN, BOB);
    expect(first.created).toBe(true);
    expect(first.conversation.otherUser.id).toBe(BOB);
    expect(first.conversation.otherUser.isFollowing).toBe(true);
    const again = await service.start(BOB, ANN);
    expect(again.created).toBe(false);
    expect(again.conversation.id).toBe(first.conversation.id);
    expect(again.conversation.otherUser.id).toBe(ANN);
    expect(calls.startPair).toBe(2);
  });

  it('refuses a conversation with oneself with SELF_ACTION_NOT_ALLOWED', async () => {
    const { store, calls } = fakeStore();
    await expect(new ConversationsService(store).start(ANN, ANN)).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
    expect(calls.startPair).toBe(0);
  });

  it('answers USER_NOT_FOUND for an unknown or banned user', async () => {
    const { store, calls } = fakeStore({ reachable: [ANN] });
    await expect(new ConversationsService(store).start(ANN, BOB)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(calls.startPair).toBe(0);
  });

  it('answers USER_BLOCKED to the blocker and USER_NOT_FOUND to the blocked user', async () => {
    const { store, calls } = fakeStore({ blocks: [[ANN, BOB]] });
    const service = new ConversationsService(store);
    await expect(service.start(ANN, BOB)).rejects.toMatchObject({ code: 'USER_BLOCKED' });
    await expect(service.start(BOB, ANN)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(calls.startPair).toBe(0);
  });
});

describe('MSG-1 list conversations', () => {
  it("returns only the caller's conversations with one users lookup for the whole page", async () => {
    const { store, calls } = fakeStore({
      reachable: [ANN, BOB, 3, 4],
      existing: [
        [ANN, BOB],
        [ANN, 3],
        [BOB, 4],
      ],
    });
    const page = await new ConversationsService(store).list(ANN, 0, 20);
    expect(page.content.map((c) => c.otherUser.id).sort()).toEqual([BOB, 3]);
    expect(page.totalElements).toBe(2);
    expect(calls.users).toBe(1);
  });
});

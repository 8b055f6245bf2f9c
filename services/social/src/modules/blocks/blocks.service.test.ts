import { describe, expect, it } from 'vitest';
import { UserBlocked, UserUnblocked } from '@msp/events';
import { ann, recordingTransactions, summaryRow } from '../../../test/unit/fakes.js';
import type { FollowsStore } from '../follows/follows.repository.js';
import type { GraphLocks } from '../users/graph-locks.repository.js';
import type { UserRow, UsersStore } from '../users/users.repository.js';
import type { BlocksStore } from './blocks.repository.js';
import { BlocksService } from './blocks.service.js';

const user = (userId: number, overrides: Partial<UserRow> = {}): UserRow => ({
  userId,
  username: `u${userId}`,
  isPrivate: false,
  blockedByViewer: false,
  hasBlockedViewer: false,
  isBanned: false,
  ...overrides,
});

/** An in-memory block list and follow graph between users 1…3. */
function world(options: { target?: UserRow | null; follows?: Array<[number, number]>; blocks?: Array<[number, number]> } = {}) {
  const blocks = new Set((options.blocks ?? []).map(([a, b]) => `${a}>${b}`));
  const follows = new Set((options.follows ?? []).map(([a, b]) => `${a}>${b}`));
  const shifted: Array<[number, number, number]> = [];
  const locked: Array<[number, number]> = [];
  const repo: BlocksStore = {
    insert: async (_tx, a, b) => !blocks.has(`${a}>${b}`) && Boolean(blocks.add(`${a}>${b}`)),
    delete: async (_tx, a, b) => blocks.delete(`${a}>${b}`),
    removeFollowsBetween: async (_tx, a, b) => {
      const removed = [`${a}>${b}`, `${b}>${a}`].filter((key) => follows.delete(key));
      return removed.map((key) => {
        const [followerId, followeeId] = key.split('>').map(Number) as [number, number];
        return { followerId, followeeId };
      });
    },
    list: async (_blocker, page, size) => ({ rows: [summaryRow(2, true)].slice(page * size, page * size + size), total: 1 }),
  };
  const followsStore: Pick<FollowsStore, 'shiftCounts'> = {
    shiftCounts: async (_tx, follower, followee, delta) => {
      shifted.push([follower, followee, delta]);
    },
  };
  const users: Pick<UsersStore, 'find'> = { find: async () => (options.target === undefined ? user(2) : options.target) };
  const graph: GraphLocks = {
    lockUsers: async (_tx, a, b) => {
      locked.push([a, b]);
    },
    followCounts: async (_tx, ids) => ids.map((userId) => ({ userId, followerCount: 0, followingCount: 0 })),
  };
  const recording = recordingTransactions();
  const service = new BlocksService(repo, followsStore, users, graph, recording.transactions);
  return { service, blocks, follows, shifted, locked, ...recording };
}

describe('BLK-1 block a user', () => {
  it('removes the follows in both directions with their counters and emits one UserBlocked with both counts', async () => {
    const w = world({
      follows: [
        [1, 2],
        [2, 1],
        [1, 3],
      ],
    });
    await expect(w.service.block({ id: 2 }, ann, 'corr')).resolves.toEqual({ message: 'User blocked.' });
    expect(w.blocks.has('1>2')).toBe(true);
    expect([...w.follows]).toEqual(['1>3']);
    expect(w.shifted).toEqual([
      [1, 2, -1],
      [2, 1, -1],
    ]);
    expect(w.locked).toEqual([[1, 2]]);
    expect(w.events).toHaveLength(1);
    expect(w.events[0]).toMatchObject({ type: UserBlocked.type, correlationId: 'corr', data: { blockerId: 1, blockedId: 2 } });
    expect((w.events[0]!.data.counts as Array<{ userId: number }>).map((c) => c.userId)).toEqual([1, 2]);
  });

  it('is idempotent: blocking again changes nothing and emits nothing', async () => {
    const w = world({ blocks: [[1, 2]] });
    await w.service.block({ id: 2 }, ann, 'corr');
    expect(w.events).toEqual([]);
    expect(w.shifted).toEqual([]);
  });

  it('works against a user who blocked the caller (R7)', async () => {
    const w = world({ target: user(2, { hasBlockedViewer: true }) });
    await w.service.block({ id: 2 }, ann, 'corr');
    expect(w.events.map((e) => e.type)).toEqual([UserBlocked.type]);
  });

  it('refuses oneself with SELF_ACTION_NOT_ALLOWED and an unknown user with USER_NOT_FOUND, without a transaction', async () => {
    const self = world({ target: user(1) });
    await expect(self.service.block({ id: 1 }, ann, 'c')).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
    const missing = world({ target: null });
    await expect(missing.service.block({ username: 'nobody' }, ann, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(self.runs() + missing.runs()).toBe(0);
  });
});

describe('BLK-2 unblock a user', () => {
  it('emits UserUnblocked once and does not restore the follows removed by the block', async () => {
    const w = world({ blocks: [[1, 2]] });
    await w.service.unblock({ id: 2 }, ann, 'corr');
    await w.service.unblock({ id: 2 }, ann, 'corr');
    expect(w.blocks.size).toBe(0);
    expect(w.follows.size).toBe(0);
    expect(w.events).toEqual([{ type: UserUnblocked.type, correlationId: 'corr', data: expect.objectContaining({ blockerId: 1, blockedId: 2 }) }]);
  });

  it('refuses oneself with SELF_ACTION_NOT_ALLOWED', async () => {
    await expect(world({ target: user(1) }).service.unblock({ id: 1 }, ann, 'c')).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
  });
});

describe('BLK-3 list blocked users', () => {
  it('pages the blocked users with isFollowing always false', async () => {
    const page = await world().service.list(ann, 0, 20);
    expect(page.totalElements).toBe(1);
    expect(page.content.map((u) => [u.id, u.isFollowing])).toEqual([[2, false]]);
  });
});

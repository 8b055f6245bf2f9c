import { describe, expect, it } from 'vitest';
import { UserFollowed, UserUnfollowed } from '@msp/events';
import { admin, ann, recordingTransactions, summaryRow } from '../../../test/unit/fakes.js';
import type { GraphLocks } from '../users/graph-locks.repository.js';
import type { UserRow, UsersStore } from '../users/users.repository.js';
import type { FollowsStore } from './follows.repository.js';
import { FollowsService } from './follows.service.js';

const user = (userId: number, overrides: Partial<UserRow> = {}): UserRow => ({
  userId,
  username: `u${userId}`,
  isPrivate: false,
  blockedByViewer: false,
  hasBlockedViewer: false,
  isBanned: false,
  ...overrides,
});

/**
 * User 2 as the caller finds them: `before` on the first lookup (outside the transaction), `after`
 * on the lookup under the pair's locks (a block may commit in between).
 */
function world(before: UserRow | null, after: UserRow | null = before, initial: Array<[number, number]> = []) {
  const follows = new Set(initial.map(([a, b]) => `${a}>${b}`));
  const lookups: Array<{ viewerId: number; inTx: boolean }> = [];
  const listed: unknown[][] = [];
  const users: Pick<UsersStore, 'find'> = {
    find: async (_ref, viewerId, db) => {
      lookups.push({ viewerId, inTx: db !== undefined });
      return db === undefined ? before : after;
    },
  };
  const count = (userId: number) => ({
    userId,
    followerCount: [...follows].filter((key) => key.endsWith(`>${userId}`)).length,
    followingCount: [...follows].filter((key) => key.startsWith(`${userId}>`)).length,
  });
  const repo: FollowsStore = {
    list: async (...args) => {
      listed.push(args);
      return { rows: [summaryRow(1, true), summaryRow(3, true)], total: 2 };
    },
    follow: async (_tx, a, b) => !follows.has(`${a}>${b}`) && Boolean(follows.add(`${a}>${b}`)),
    unfollow: async (_tx, a, b) => follows.delete(`${a}>${b}`),
    shiftCounts: async () => undefined,
    counts: async (_tx, ids) => ids.map(count),
    suggested: async () => ({ rows: [summaryRow(4)], total: 1 }),
  };
  const graph: Pick<GraphLocks, 'lockUsers'> = { lockUsers: async () => undefined };
  const recording = recordingTransactions();
  return { service: new FollowsService(repo, users, graph, recording.transactions), follows, lookups, listed, ...recording };
}

describe('FOL-1 follow a user', () => {
  it('creates the follow, answers the followee count and emits UserFollowed with both counts, once', async () => {
    const w = world(user(2));
    await expect(w.service.follow({ id: 2 }, ann, 'corr')).resolves.toEqual({ message: 'You are following u2.', isFollowing: true, followerCount: 1 });
    await expect(w.service.follow({ id: 2 }, ann, 'corr')).resolves.toMatchObject({ isFollowing: true, followerCount: 1 });
    expect(w.events).toEqual([
      {
        type: UserFollowed.type,
        correlationId: 'corr',
        data: expect.objectContaining({ followerId: 1, followeeId: 2, followerFollowingCount: 1, followeeFollowerCount: 1 }),
      },
    ]);
  });

  it('R7: 403 USER_BLOCKED towards a user the caller blocked, 404 USER_NOT_FOUND towards one who blocked the caller', async () => {
    const blocked = world(user(2, { blockedByViewer: true }));
    await expect(blocked.service.follow({ id: 2 }, ann, 'c')).rejects.toMatchObject({ code: 'USER_BLOCKED' });
    const blocker = world(user(2, { hasBlockedViewer: true }));
    await expect(blocker.service.follow({ id: 2 }, ann, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(blocked.follows.size + blocker.follows.size).toBe(0);
  });

  it('R7: a block committed between the lookup and the locks wins', async () => {
    const w = world(user(2), user(2, { hasBlockedViewer: true }));
    await expect(w.service.follow({ id: 2 }, ann, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    expect(w.lookups.map((l) => l.inTx)).toEqual([false, true]);
    expect(w.events).toEqual([]);
  });

  it('refuses oneself with SELF_ACTION_NOT_ALLOWED, and a banned user with USER_NOT_FOUND (R14)', async () => {
    await expect(world(user(1)).service.follow({ id: 1 }, ann, 'c')).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
    await expect(world(user(2, { isBanned: true })).service.follow({ id: 2 }, ann, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });
});

describe('FOL-2 unfollow a user', () => {
  it('emits UserUnfollowed only when a follow was removed', async () => {
    const w = world(user(2), user(2), [[1, 2]]);
    await expect(w.service.unfollow({ id: 2 }, ann, 'c')).resolves.toEqual({
      message: 'You are no longer following this user.',
      isFollowing: false,
      followerCount: 0,
    });
    await w.service.unfollow({ id: 2 }, ann, 'c');
    expect(w.events.map((e) => [e.type, e.data.followeeFollowerCount])).toEqual([[UserUnfollowed.type, 0]]);
  });

  it('R14: works towards a banned user, but not towards one who blocked the caller', async () => {
    const banned = world(user(2, { isBanned: true }), user(2), [[1, 2]]);
    await expect(banned.service.unfollow({ id: 2 }, ann, 'c')).resolves.toMatchObject({ isFollowing: false });
    expect(banned.events).toHaveLength(1);
    await expect(world(user(2, { hasBlockedViewer: true })).service.unfollow({ id: 2 }, ann, 'c')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });
});

describe('FOL-3 / FOL-4 followers and following lists', () => {
  it("R8: a private profile's lists are refused to others with PROFILE_PRIVATE, allowed to its owner and admins", async () => {
    await expect(world(user(2, { isPrivate: true })).service.list('followers', { id: 2 }, ann, 0, 20)).rejects.toMatchObject({ code: 'PROFILE_PRIVATE' });
    await expect(world(user(2, { isPrivate: true })).service.list('following', { id: 2 }, null, 0, 20)).rejects.toMatchObject({ code: 'PROFILE_PRIVATE' });
    const own = world(user(1, { isPrivate: true }));
    await expect(own.service.list('followers', { id: 1 }, ann, 0, 20)).resolves.toMatchObject({ totalElements: 2 });
    const byAdmin = world(user(2, { isPrivate: true }));
    await byAdmin.service.list('following', { id: 2 }, admin, 1, 5);
    expect(byAdmin.listed).toEqual([['following', 2, 9, 1, 5, true]]);
  });

  it('never shows the viewer as following themself', async () => {
    const page = await world(user(2)).service.list('followers', { id: 2 }, ann, 0, 20);
    expect(page.content.map((u) => [u.id, u.isFollowing])).toEqual([
      [1, false],
      [3, true],
    ]);
  });
});

describe('USR-16 suggested users', () => {
  it('lists suggestions as not followed', async () => {
    const page = await world(null).service.suggested(ann, 0, 20);
    expect(page.content).toEqual([expect.objectContaining({ id: 4, isFollowing: false })]);
  });
});

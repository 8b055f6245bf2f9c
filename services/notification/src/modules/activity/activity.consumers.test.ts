import { describe, expect, it } from 'vitest';
import type { Prisma } from '../../generated/prisma/client.js';
import { DEDUP_WINDOW_MS, NotificationCreator, type NotificationInput, type NotificationStore } from './activity.consumers.js';

/** An in-memory stand-in for the repository: enough of R15 to decide without a database. */
function fakeStore(options: { blocked?: boolean; banned?: boolean; preferences?: Partial<Record<string, boolean>> } = {}) {
  const claimed = new Map<string, number>();
  const inserted: unknown[] = [];
  const announced: unknown[] = [];
  const store: NotificationStore = {
    relationFlags: async () => ({ blocked: options.blocked ?? false, banned: options.banned ?? false }),
    preferencesOf: async () =>
      options.preferences
        ? { notifyOnFollow: true, notifyOnLike: true, notifyOnRepost: true, notifyOnComment: true, notifyOnDM: true, ...options.preferences }
        : null,
    claimDedupKey: async (_tx, key, at, windowMs) => {
      const id = JSON.stringify(key);
      const last = claimed.get(id);
      if (last !== undefined && last > at.getTime() - windowMs) return false;
      claimed.set(id, at.getTime());
      return true;
    },
    insert: async (_tx, data) => inserted.push(data),
    targetOf: async () => ({ title: 'First light', slug: 'first-light', owner: 'ann' }),
    usernameOf: async () => 'bob',
    view: async () => null,
    countUnread: async () => 1,
    announceCreated: async (_tx, event) => void announced.push(event),
  };
  return { store, inserted, announced };
}

const tx = {} as Prisma.TransactionClient;
const like: NotificationInput = { recipientId: 1, actorId: 2, type: 'LIKE', resourceType: 'TRACK', resourceId: 10 };
const at = new Date('2026-01-01T00:00:00Z');

describe('R15 notification rules (unit, fake store)', () => {
  it("never for one's own action, across a block, or with a banned party", async () => {
    expect(await new NotificationCreator(fakeStore().store).create(tx, { ...like, actorId: 1 }, at)).toBe('own-action');
    expect(await new NotificationCreator(fakeStore({ blocked: true }).store).create(tx, like, at)).toBe('blocked');
    expect(await new NotificationCreator(fakeStore({ banned: true }).store).create(tx, like, at)).toBe('banned');
  });

  it("honours the recipient's preference; notifyOnComment covers replies", async () => {
    expect(await new NotificationCreator(fakeStore({ preferences: { notifyOnLike: false } }).store).create(tx, like, at)).toBe('preference-off');
    const reply = { ...like, type: 'REPLY' as const };
    expect(await new NotificationCreator(fakeStore({ preferences: { notifyOnComment: false } }).store).create(tx, reply, at)).toBe('preference-off');
    expect(await new NotificationCreator(fakeStore({ preferences: { notifyOnLike: false } }).store).create(tx, reply, at)).toBe('created');
  });

  it('platform notices (duplicate detection) pass the own-action, block, ban and preference rules, not the dedup', async () => {
    const notice: NotificationInput = { recipientId: 1, actorId: 1, type: 'UPLOAD_HELD_BACK', resourceType: 'TRACK', resourceId: 10 };
    const off = { notifyOnFollow: false, notifyOnLike: false, notifyOnRepost: false, notifyOnComment: false, notifyOnDM: false };
    const { store, inserted } = fakeStore({ blocked: true, banned: true, preferences: off });
    const creator = new NotificationCreator(store);
    expect(await creator.create(tx, notice, at)).toBe('created');
    expect(await creator.create(tx, notice, at)).toBe('duplicate');
    expect(inserted).toEqual([expect.objectContaining({ type: 'UPLOAD_HELD_BACK', recipientId: 1, actorId: 1 })]);
  });

  it('one per actor, type and resource within 24 h; a new one after the window', async () => {
    const { store, inserted } = fakeStore();
    const creator = new NotificationCreator(store);
    expect(await creator.create(tx, like, at)).toBe('created');
    expect(await creator.create(tx, like, new Date(at.getTime() + 60_000))).toBe('duplicate');
    expect(await creator.create(tx, { ...like, resourceId: 11 }, at)).toBe('created');
    expect(await creator.create(tx, like, new Date(at.getTime() + DEDUP_WINDOW_MS))).toBe('created');
    expect(inserted).toHaveLength(3);
    expect(inserted[0]).toMatchObject({ targetTitle: 'First light', targetUrl: expect.stringContaining('ann/first-light') });
  });
});

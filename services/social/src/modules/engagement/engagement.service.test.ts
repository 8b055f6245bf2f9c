import { describe, expect, it } from 'vitest';
import { ItemLiked, ItemReposted, ItemUnliked, ItemUnreposted } from '@msp/events';
import { admin, ann, bob, recordingTransactions, summaryRow } from '../../../test/unit/fakes.js';
import type { Viewer } from '../users/viewer.js';
import type { EngagementStore, TargetRow } from './engagement.repository.js';
import { EngagementService } from './engagement.service.js';

const track: TargetRow = { id: 7, ownerId: bob.userId, durationSeconds: 60, likeCount: 0, repostCount: 0 };

/**
 * One item, visible unless `hidden`; `bannedOwner` hides it except when the service asks to
 * ignore the owner's ban (R14). Likes and reposts are sets of user ids.
 */
function world(options: { hidden?: boolean; bannedOwner?: boolean } = {}) {
  const sets = { like: new Set<number>(), repost: new Set<number>() };
  const lookups: Array<{ viewer: Viewer; ignoreOwnerBan: boolean }> = [];
  const actorCalls: Viewer[] = [];
  const repo: EngagementStore = {
    findVisible: async (_type, id, viewer, ignoreOwnerBan = false) => {
      lookups.push({ viewer, ignoreOwnerBan });
      if (options.hidden || id !== track.id) return null;
      if (options.bannedOwner && !ignoreOwnerBan) return null;
      return track;
    },
    apply: async (_tx, action, _type, _id, userId, on) => {
      const set = sets[action];
      const changed = on ? !set.has(userId) : set.has(userId);
      if (on) set.add(userId);
      else set.delete(userId);
      return [changed, set.size];
    },
    actors: async (_action, _type, _id, viewer) => {
      actorCalls.push(viewer);
      return { rows: [summaryRow(1, true), summaryRow(3, true)], total: 2 };
    },
  };
  const recording = recordingTransactions();
  return { service: new EngagementService(repo, recording.transactions), sets, lookups, actorCalls, ...recording };
}

describe('ENG-1 / ENG-2 like and unlike a track', () => {
  it('answers the count after the call and emits ItemLiked only when the like is new', async () => {
    const w = world();
    await expect(w.service.like('TRACK', 7, ann, true, 'c1')).resolves.toEqual({ message: 'Track liked.', isLiked: true, likeCount: 1 });
    await expect(w.service.like('TRACK', 7, ann, true, 'c2')).resolves.toMatchObject({ likeCount: 1 });
    expect(w.events).toEqual([
      { type: ItemLiked.type, correlationId: 'c1', data: expect.objectContaining({ userId: 1, targetType: 'TRACK', targetId: 7, ownerId: 2, likeCount: 1 }) },
    ]);
  });

  it('emits ItemUnliked with the new count, and nothing when there was no like', async () => {
    const w = world();
    await w.service.like('TRACK', 7, ann, true, 'c');
    await expect(w.service.like('TRACK', 7, ann, false, 'c')).resolves.toEqual({ message: 'Track unliked.', isLiked: false, likeCount: 0 });
    await w.service.like('TRACK', 7, ann, false, 'c');
    expect(w.events.map((e) => [e.type, e.data.likeCount])).toEqual([
      [ItemLiked.type, 1],
      [ItemUnliked.type, 0],
    ]);
  });

  it('answers TRACK_NOT_FOUND (or PLAYLIST_NOT_FOUND) for an item the caller may not see, before any write', async () => {
    const w = world({ hidden: true });
    await expect(w.service.like('TRACK', 7, ann, true, 'c')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(w.service.like('PLAYLIST', 7, ann, true, 'c')).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    expect(w.runs()).toBe(0);
  });

  it("R14: an item hidden by its owner's ban can be unliked but not liked", async () => {
    const w = world({ bannedOwner: true });
    await expect(w.service.like('TRACK', 7, ann, true, 'c')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(w.service.like('TRACK', 7, ann, false, 'c')).resolves.toMatchObject({ isLiked: false });
    expect(w.lookups.map((l) => l.ignoreOwnerBan)).toEqual([false, true]);
  });
});

describe('ENG-4 / ENG-5 repost and remove a repost', () => {
  it("refuses reposting one's own item with SELF_ACTION_NOT_ALLOWED but lets the owner remove a repost", async () => {
    const w = world();
    await expect(w.service.repost('TRACK', 7, bob, true, 'c')).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
    await expect(w.service.repost('TRACK', 7, bob, false, 'c')).resolves.toMatchObject({ isReposted: false, repostCount: 0 });
    expect(w.events).toEqual([]);
  });

  it('emits ItemReposted then ItemUnreposted with the repost count', async () => {
    const w = world();
    await expect(w.service.repost('PLAYLIST', 7, ann, true, 'c')).resolves.toEqual({ message: 'Playlist reposted.', isReposted: true, repostCount: 1 });
    await expect(w.service.repost('PLAYLIST', 7, ann, false, 'c')).resolves.toEqual({
      message: 'Playlist repost removed.',
      isReposted: false,
      repostCount: 0,
    });
    expect(w.events.map((e) => [e.type, e.data.targetType, e.data.repostCount])).toEqual([
      [ItemReposted.type, 'PLAYLIST', 1],
      [ItemUnreposted.type, 'PLAYLIST', 0],
    ]);
  });
});

describe('ENG-3 / ENG-6 likers and reposters', () => {
  it('hands the viewer (admin flag included) to the SQL and never shows the viewer as following themself', async () => {
    const w = world();
    const page = await w.service.actors('like', 'TRACK', 7, ann, 0, 20);
    expect(page.content.map((u) => [u.id, u.isFollowing])).toEqual([
      [1, false],
      [3, true],
    ]);
    await w.service.actors('repost', 'TRACK', 7, admin, 0, 20);
    await w.service.actors('like', 'TRACK', 7, null, 0, 20);
    expect(w.actorCalls).toEqual([
      { id: 1, isAdmin: false },
      { id: 9, isAdmin: true },
      { id: 0, isAdmin: false },
    ]);
  });

  it('answers TRACK_NOT_FOUND for a hidden track', async () => {
    await expect(world({ hidden: true }).service.actors('like', 'TRACK', 7, ann, 0, 20)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

import { describe, expect, it } from 'vitest';
import type { Playlist } from '@msp/contracts';
import { PlaylistChanged, PlaylistDeleted } from '@msp/events';
import type { Caller } from '@msp/http';
import { outboxRecorder } from '@msp/testing/fakes';
import { admin, ann, bob, playlistRow, trackRow } from '../../../test/unit/fakes.js';
import { PlaylistEditsService } from './playlist-edits.service.js';
import type { PlaylistRow, PlaylistWrites, Tx } from './playlists.repository.js';
import { MAX_TRACKS, type PlaylistsService } from './playlists.service.js';

const slugTaken = Object.assign(new Error('Unique constraint failed'), { name: 'PrismaClientKnownRequestError', code: 'P2002' });

type TrackInfo = Awaited<ReturnType<PlaylistWrites['track']>>;
const track = (overrides: Partial<NonNullable<TrackInfo>> = {}): TrackInfo => {
  const { artistId, isPrivate, heldBack, state, deletedAt } = trackRow({ artistId: 3 });
  return { artistId, isPrivate, heldBack, state, deletedAt, ...overrides };
};

interface World {
  playlist?: PlaylistRow | null;
  members?: number[];
  /** Member ids the owner cannot see right now. */
  invisible?: number[];
  tracks?: Record<number, TrackInfo>;
  hidden?: number[];
  blocks?: Array<[number, number]>;
  /** How many creates fail with a taken slug. */
  slugRaces?: number;
}

function world(options: World = {}) {
  const { tx, events } = outboxRecorder({ correlationIds: true });
  let playlist = options.playlist === undefined ? playlistRow() : options.playlist;
  let members = [...(options.members ?? [])];
  let slugRaces = options.slugRaces ?? 0;
  const removedObjects: string[][] = [];
  const slugs: string[] = [];
  let transactions = 0;
  const repo: PlaylistWrites = {
    transaction: async (fn) => {
      transactions += 1;
      return fn(tx as unknown as Tx);
    },
    freeSlug: async (base) => `${base}-2`,
    create: async (_tx, data) => {
      slugs.push(data.playlistSlug);
      if (slugRaces-- > 0) throw slugTaken;
      playlist = playlistRow({ ...data, id: 6 } as Partial<PlaylistRow>);
      return playlist;
    },
    update: async (_tx, _id, changes) => {
      playlist = { ...playlist!, ...(changes as Partial<PlaylistRow>) };
      return playlist;
    },
    delete: async () => {
      playlist = null;
    },
    lock: async () => playlist !== null,
    findById: async () => playlist,
    track: async (id) => options.tracks?.[id] ?? null,
    ownerHidden: async (userId) => (options.hidden ?? []).includes(userId),
    blocked: async (viewerId, userId) => (options.blocks ?? []).some(([a, b]) => a === viewerId && b === userId),
    sweepDeleted: async () => 0,
    touch: async () => undefined,
    memberIds: async () => [...members],
    append: async (_tx, _id, trackId) => {
      members.push(trackId);
    },
    removeMember: async (_tx, _id, trackId) => {
      const before = members.length;
      members = members.filter((id) => id !== trackId);
      return members.length < before;
    },
    visibleEntries: async () => members.filter((id) => !(options.invisible ?? []).includes(id)).map((trackId) => ({ trackId, artistId: 2 })),
    renumber: async (_tx, _id, ordered) => {
      members = [...ordered];
    },
  };
  /** As PlaylistsService.ownedRow: the owner passes, an admin gets 403, anyone else 404. */
  const reads: Pick<PlaylistsService, 'ownedRow' | 'render'> = {
    ownedRow: async (id: number, caller: Caller) => {
      if (!playlist || playlist.id !== id) throw Object.assign(new Error('404'), { code: 'PLAYLIST_NOT_FOUND' });
      if (playlist.ownerId === caller.userId) return playlist;
      throw Object.assign(new Error(caller.role === 'ADMIN' ? '403' : '404'), { code: caller.role === 'ADMIN' ? 'FORBIDDEN' : 'PLAYLIST_NOT_FOUND' });
    },
    render: async (row) => ({ id: row.id, title: row.title }) as Playlist,
  };
  const storage = {
    put: async () => undefined,
    remove: async (keys: string[]) => {
      removedObjects.push(keys);
    },
  };
  const service = new PlaylistEditsService({ repo, reads, presenter: { coverUrl: (row) => (row.coverKey ? `https://cdn/${row.coverKey}` : null) }, storage });
  return { service, events, removedObjects, slugs, members: () => members, playlist: () => playlist, transactions: () => transactions };
}

const none = { kind: 'none' } as const;

describe('PLS-3 create a playlist', () => {
  it('takes the first free slug and emits PlaylistChanged with the new row, in one transaction', async () => {
    const w = world({ playlist: null });
    await expect(w.service.create(bob, { title: 'Road Trip', isPrivate: true }, none, 'corr')).resolves.toMatchObject({ id: 6, title: 'Road Trip' });
    expect(w.slugs).toEqual(['road-trip-2']);
    expect(w.playlist()).toMatchObject({ ownerId: 2, isPrivate: true, type: 'PLAYLIST', tags: [] });
    expect(w.playlist()!.secretToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(w.events).toEqual([
      { type: PlaylistChanged.type, correlationId: 'corr', data: expect.objectContaining({ playlistId: 6, ownerId: 2, isPrivate: true, coverArtUrl: null }) },
    ]);
  });

  it('retries with a random suffix when a concurrent create took the slug, at most three times', async () => {
    const once = world({ playlist: null, slugRaces: 1 });
    await once.service.create(bob, { title: 'Mix' }, none, 'c');
    expect(once.slugs).toEqual(['mix-2', expect.stringMatching(/^mix-[0-9a-f]{6}$/)]);
    const always = world({ playlist: null, slugRaces: 3 });
    await expect(always.service.create(bob, { title: 'Mix' }, none, 'c')).rejects.toBe(slugTaken);
    expect(always.slugs).toHaveLength(3);
    expect(always.events).toEqual([]);
  });
});

describe('PLS-5 update a playlist', () => {
  it('changes only the given fields, keeps the slug (R1) and emits PlaylistChanged', async () => {
    const w = world();
    await w.service.update(5, bob, { description: 'new' }, none, 'c');
    expect(w.playlist()).toMatchObject({ title: 'Mix', playlistSlug: 'mix', description: 'new' });
    expect(w.events.map((e) => e.type)).toEqual([PlaylistChanged.type]);
  });

  it('removes the cover with CoverArt "" and deletes the old object after the commit', async () => {
    const w = world({ playlist: playlistRow({ coverKey: 'public/old/cover.jpg' }) });
    await w.service.update(5, bob, {}, { kind: 'remove' }, 'c');
    expect(w.playlist()!.coverKey).toBeNull();
    expect(w.removedObjects).toEqual([['public/old/cover.jpg']]);
  });

  it('refuses a stranger (PLAYLIST_NOT_FOUND) and an admin (FORBIDDEN) before any write', async () => {
    const w = world();
    await expect(w.service.update(5, ann, { title: 'x' }, none, 'c')).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
    await expect(w.service.update(5, admin, { title: 'x' }, none, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(w.transactions()).toBe(0);
  });

  it('refuses an unsupported cover image with UNSUPPORTED_IMAGE_FORMAT', async () => {
    await expect(world().service.update(5, bob, {}, { kind: 'image', bytes: Buffer.from('not an image') }, 'c')).rejects.toMatchObject({
      code: 'UNSUPPORTED_IMAGE_FORMAT',
    });
  });
});

describe('PLS-6 / PLS-7 delete a playlist or its cover', () => {
  it('deletes the row, emits PlaylistDeleted and removes the cover object', async () => {
    const w = world({ playlist: playlistRow({ coverKey: 'public/c/cover.jpg' }) });
    await w.service.delete(5, bob, 'corr');
    expect(w.playlist()).toBeNull();
    expect(w.events).toEqual([{ type: PlaylistDeleted.type, correlationId: 'corr', data: { playlistId: 5, ownerId: 2 } }]);
    expect(w.removedObjects).toEqual([['public/c/cover.jpg']]);
  });

  it('deleting a missing cover changes nothing and emits nothing', async () => {
    const w = world();
    await w.service.deleteCover(5, bob, 'c');
    expect(w.transactions()).toBe(0);
    expect(w.events).toEqual([]);
  });

  it('deleting the cover clears it, emits PlaylistChanged and removes the object', async () => {
    const w = world({ playlist: playlistRow({ coverKey: 'public/c/cover.jpg' }) });
    await w.service.deleteCover(5, bob, 'c');
    expect(w.events).toEqual([expect.objectContaining({ type: PlaylistChanged.type, data: expect.objectContaining({ coverArtUrl: null }) })]);
    expect(w.removedObjects).toEqual([['public/c/cover.jpg']]);
  });
});

describe('PLS-8 add a track to a playlist (R6)', () => {
  it("appends the owner's own track in any state and a public finished track of another artist", async () => {
    const w = world({ tracks: { 1: track({ artistId: 2, isPrivate: true, state: 'PROCESSING' }), 2: track() } });
    await w.service.addTrack(5, 1, bob);
    await w.service.addTrack(5, 2, bob);
    expect(w.members()).toEqual([1, 2]);
  });

  it('answers TRACK_NOT_FOUND for a track the owner may not see: missing, deleted, private, held back, unfinished, banned artist, blocked', async () => {
    const tracks = {
      2: track({ deletedAt: new Date() }),
      3: track({ isPrivate: true }),
      4: track({ heldBack: true }),
      5: track({ state: 'FAILED' }),
      6: track({ artistId: 4 }),
      7: track({ artistId: 8 }),
    };
    const w = world({ tracks, hidden: [4], blocks: [[2, 8]] });
    for (const id of [1, 2, 3, 4, 5, 6, 7]) await expect(w.service.addTrack(5, id, bob)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    expect(w.members()).toEqual([]);
  });

  it('answers TRACK_ALREADY_IN_PLAYLIST for a member and PLAYLIST_FULL at the limit', async () => {
    await expect(world({ members: [2], tracks: { 2: track() } }).service.addTrack(5, 2, bob)).rejects.toMatchObject({ code: 'TRACK_ALREADY_IN_PLAYLIST' });
    const full = Array.from({ length: MAX_TRACKS }, (_, i) => 1000 + i);
    await expect(world({ members: full, tracks: { 2: track() } }).service.addTrack(5, 2, bob)).rejects.toMatchObject({ code: 'PLAYLIST_FULL' });
  });

  it("refuses changes to someone else's playlist", async () => {
    await expect(world({ tracks: { 2: track() } }).service.addTrack(5, 2, ann)).rejects.toMatchObject({ code: 'PLAYLIST_NOT_FOUND' });
  });
});

describe('PLS-9 remove a track from a playlist', () => {
  it('answers TRACK_NOT_IN_PLAYLIST for a track that is not a member', async () => {
    const w = world({ members: [1, 2] });
    await w.service.removeTrack(5, 1, bob);
    expect(w.members()).toEqual([2]);
    await expect(w.service.removeTrack(5, 1, bob)).rejects.toMatchObject({ code: 'TRACK_NOT_IN_PLAYLIST' });
  });
});

describe('PLS-10 reorder a playlist', () => {
  it('keeps the tracks the owner cannot see after the given ones, in their relative order', async () => {
    const w = world({ members: [1, 9, 2, 3, 8], invisible: [9, 8] });
    await w.service.reorder(5, [3, 1, 2], bob);
    expect(w.members()).toEqual([3, 1, 2, 9, 8]);
  });

  it('refuses anything but a permutation of the visible tracks with INVALID_PLAYLIST_ORDER', async () => {
    const w = world({ members: [1, 2, 3] });
    for (const order of [
      [1, 2],
      [1, 2, 2],
      [1, 2, 4],
      [1, 2, 3, 3],
    ]) {
      await expect(w.service.reorder(5, order, bob)).rejects.toMatchObject({ code: 'INVALID_PLAYLIST_ORDER' });
    }
    expect(w.members()).toEqual([1, 2, 3]);
  });
});

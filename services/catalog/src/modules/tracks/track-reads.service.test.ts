import { describe, expect, it } from 'vitest';
import type { Track } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { admin, ann, bob, readTrack } from '../../../test/unit/fakes.js';
import { historyStart } from './history-index.js';
import { TrackAccess } from './track-access.js';
import type { ReadTrack } from './track-reads.repository.js';
import { pageTotal, TrackReadsService, type TrackReadsServiceDeps } from './track-reads.service.js';

type Reads = TrackReadsServiceDeps['reads'];
type Owner = { userId: number; isBanned: boolean; trackCount: number; blocked: boolean };

interface World {
  track?: ReadTrack | null;
  /** The listed user (USR-18): bob unless told. */
  owner?: Owner | null;
  tier?: string;
  showHistory?: boolean;
  original?: { originalKey: string | null; originalFormat: string | null };
  /** The presenter answers null (a block found by social). */
  presenterRefuses?: boolean;
}

function world(options: World = {}) {
  const track = options.track === undefined ? readTrack() : options.track;
  const owner = options.owner === undefined ? { userId: bob.userId, isBanned: false, trackCount: 1, blocked: false } : options.owner;
  const pages: Array<{ artistId: number; publicOnly: boolean }> = [];
  const presented: Array<{ viaToken?: boolean }> = [];
  const reads: Reads = {
    byId: async (id) => (track?.id === id ? track : null),
    byToken: async (token) => (track?.secretToken === token ? track : null),
    bySlug: async (slug) => (track?.trackSlug === slug ? track : null),
    artistPage: async (artistId, publicOnly) => {
      pages.push({ artistId, publicOnly });
      return track ? [track] : [];
    },
    artistCount: async () => 1,
    artistAnchors: async () => [],
    publicArtistPage: async () => ({
      user: owner && { userId: owner.userId, isBanned: owner.isBanned, trackCount: owner.trackCount, blocked: owner.blocked },
      rows: track ? [track] : [],
    }),
    user: async () => owner,
    historyOutline: async () => ({ total: 1, step: 20, anchors: [] }),
    historyPage: async () => ({
      rows: track ? [track] : [],
      playedAt: new Map([[7, '2025-03-02T00:00:00.000Z']]),
      flags: { liked: [], reposted: [], following: [] },
      showHistory: options.showHistory ?? true,
    }),
    userFlags: async () => ({ showHistory: options.showHistory ?? true, tier: options.tier ?? 'FREE' }),
  } as Reads;
  const access = new TrackAccess({
    byId: reads.byId,
    byIdForViewer: async (id) => (track?.id === id ? { row: track, flags: { isLiked: false, isReposted: false } } : null) as never,
  });
  const render = (row: ReadTrack) => ({ id: row.id, title: row.title, waveformUrl: 'https://cdn/w.json', artist: { username: 'bob' } }) as Track;
  const service = new TrackReadsService({
    reads,
    repo: { original: async () => options.original ?? { originalKey: 'uploads/o.flac', originalFormat: 'flac' } },
    access,
    presenter: {
      presentOne: async (row, _caller, o = {}) => {
        presented.push(o);
        return options.presenterRefuses ? null : render(row as ReadTrack);
      },
      present: async (rows) => rows.map((row) => render(row as ReadTrack)),
    },
    historyIndex: {
      locate: async (_userId, offset, walk) => {
        const outline = await walk();
        return { total: outline.total, start: historyStart(outline, offset) };
      },
    },
    webBaseUrl: 'https://web.test',
  });
  return { service, pages, presented };
}

const pro: Caller = { ...ann, tier: 'PRO' };
const q = { page: 0, size: 20 };

describe('TRK-6 get a track (R2, R7, R14)', () => {
  it('shows a public finished track to anyone', async () => {
    await expect(world().service.get(7, null)).resolves.toMatchObject({ id: 7 });
    await expect(world().service.get(7, ann)).resolves.toMatchObject({ id: 7 });
  });

  it('answers TRACK_NOT_FOUND for a private, unfinished, held-back, deleted, blocked or banned-artist track, to others', async () => {
    for (const hidden of [
      readTrack({ isPrivate: true }),
      readTrack({ state: 'PROCESSING' }),
      readTrack({ heldBack: true }),
      readTrack({ deletedAt: new Date() }),
      readTrack({ blocked: true }),
      readTrack({ artistHidden: true }),
    ]) {
      await expect(world({ track: hidden }).service.get(7, ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    }
    await expect(world({ track: readTrack({ isPrivate: true }) }).service.get(7, bob)).resolves.toMatchObject({ id: 7 });
    await expect(world({ track: readTrack({ isPrivate: true }) }).service.get(7, admin)).resolves.toMatchObject({ id: 7 });
  });

  it('answers TRACK_NOT_FOUND when the presenter finds a block', async () => {
    await expect(world({ presenterRefuses: true }).service.get(7, ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

describe('TRK-7 own track', () => {
  it("answers only the artist's own track, in any state", async () => {
    await expect(world({ track: readTrack({ state: 'FAILED' }) }).service.getOwn(7, bob)).resolves.toMatchObject({ id: 7 });
    await expect(world().service.getOwn(7, admin)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

describe('TRK-13 open a track by its secret token (R5)', () => {
  it('opens a private finished track for anyone holding the token', async () => {
    const w = world({ track: readTrack({ isPrivate: true }) });
    await expect(w.service.byToken('tok', ann)).resolves.toMatchObject({ id: 7 });
    expect(w.presented).toEqual([{ viaToken: true }]);
  });

  it('opens an unfinished track only for its owner and admins', async () => {
    const unfinished = readTrack({ isPrivate: true, state: 'PROCESSING' });
    await expect(world({ track: unfinished }).service.byToken('tok', ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world({ track: unfinished }).service.byToken('tok', bob)).resolves.toMatchObject({ id: 7 });
  });

  it('R14 / R7: opens nothing of a banned artist or across a block, except for admins', async () => {
    await expect(world({ track: readTrack({ artistBanned: true }) }).service.byToken('tok', ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world({ track: readTrack({ blocked: true }) }).service.byToken('tok', ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world({ track: readTrack({ artistBanned: true }) }).service.byToken('tok', admin)).resolves.toMatchObject({ id: 7 });
    await expect(world().service.byToken('other', ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

describe('TRK-14 resolve and TRK-15 waveform', () => {
  it('resolves a visible slug, never a private one for others', async () => {
    await expect(world().service.resolve('song', null)).resolves.toEqual({ type: 'TRACK', id: 7, resourceType: 'TRACK', resourceId: 7 });
    await expect(world({ track: readTrack({ isPrivate: true }) }).service.resolve('song', ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });

  it('gives the waveform and duration of a finished track', async () => {
    await expect(world().service.waveformUrl(7, null)).resolves.toEqual({ trackId: 7, waveformUrl: 'https://cdn/w.json', duration: 60 });
    await expect(world({ track: readTrack({ state: 'PROCESSING' }) }).service.waveformUrl(7, bob)).resolves.toEqual({
      trackId: 7,
      waveformUrl: null,
      duration: null,
    });
  });
});

describe('TRK-16 embed code', () => {
  it('links the permalink, adds the token for a private track of the owner only', async () => {
    const pub = await world().service.embed(7, null);
    expect(pub.embedUrl).toBe(`https://web.test/embed/player?url=${encodeURIComponent('https://web.test/bob/song')}`);
    expect(pub.embedCode).toContain(`src="${pub.embedUrl}"`);
    const own = await world({ track: readTrack({ isPrivate: true }) }).service.embed(7, bob);
    expect(own.embedUrl).toMatch(/&token=tok$/);
    expect(own.embedCode).toContain('&amp;token=tok');
  });
});

describe('TRK-19 download (R12)', () => {
  it('gives a PRO caller the original with its file name and content type', async () => {
    await expect(world({ tier: 'PRO' }).service.download(7, pro)).resolves.toEqual({ key: 'uploads/o.flac', filename: 'song.flac', contentType: 'audio/flac' });
  });

  it('answers PRO_REQUIRED from the stored tier, whatever the token claims', async () => {
    await expect(world({ tier: 'FREE' }).service.download(7, pro)).rejects.toMatchObject({ code: 'PRO_REQUIRED' });
  });

  it('answers TRACK_NOT_PLAYABLE for a non-PLAYABLE track (not to its owner) and INVALID_TRACK_STATE before processing ends', async () => {
    await expect(world({ tier: 'PRO', track: readTrack({ access: 'PREVIEW' }) }).service.download(7, pro)).rejects.toMatchObject({
      code: 'TRACK_NOT_PLAYABLE',
    });
    await expect(world({ tier: 'PRO', track: readTrack({ access: 'PREVIEW' }) }).service.download(7, { ...bob, tier: 'PRO' })).resolves.toMatchObject({
      filename: 'song.flac',
    });
    await expect(world({ tier: 'PRO', track: readTrack({ state: 'PROCESSING' }) }).service.download(7, bob)).rejects.toMatchObject({
      code: 'INVALID_TRACK_STATE',
    });
  });

  it('falls back to application/octet-stream and .bin for an unknown format, TRACK_NOT_FOUND without an original', async () => {
    await expect(world({ tier: 'PRO', original: { originalKey: 'k', originalFormat: 'xyz' } }).service.download(7, pro)).resolves.toMatchObject({
      filename: 'song.bin',
      contentType: 'application/octet-stream',
    });
    await expect(world({ tier: 'PRO', original: { originalKey: null, originalFormat: null } }).service.download(7, pro)).rejects.toMatchObject({
      code: 'TRACK_NOT_FOUND',
    });
  });
});

describe('USR-18 / TRK-22 a user’s tracks', () => {
  it('lists only public tracks to others, every track to the owner and admins', async () => {
    const w = world();
    await w.service.listByUser({ userId: 2 }, bob, q);
    await w.service.listByUser({ username: 'bob' }, admin, q);
    expect(w.pages).toEqual([
      { artistId: 2, publicOnly: false },
      { artistId: 2, publicOnly: false },
    ]);
    await expect(w.service.listByUser({ userId: 2 }, ann, q)).resolves.toMatchObject({ totalElements: 1 });
  });

  it('R14 / R7: a banned user, or one a block separates from the caller, is USER_NOT_FOUND', async () => {
    await expect(
      world({ owner: { userId: 2, isBanned: true, trackCount: 1, blocked: false } }).service.listByUser({ userId: 2 }, ann, q),
    ).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    await expect(
      world({ owner: { userId: 2, isBanned: false, trackCount: 1, blocked: true } }).service.listByUser({ userId: 2 }, null, q),
    ).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    await expect(world({ owner: null }).service.listByUser({ username: 'nobody' }, ann, q)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(
      world({ owner: { userId: 2, isBanned: true, trackCount: 1, blocked: false } }).service.listByUser({ userId: 2 }, admin, q),
    ).resolves.toMatchObject({
      totalElements: 1,
    });
  });
});

describe('USR-17 listening history (R8)', () => {
  it('answers the entries with lastPlayedAt, and an empty page while showHistory is off', async () => {
    const page = await world().service.history(ann, q);
    expect(page.content).toEqual([expect.objectContaining({ id: 7, lastPlayedAt: '2025-03-02T00:00:00.000Z' })]);
    await expect(world({ showHistory: false }).service.history(ann, q)).resolves.toMatchObject({ content: [], totalElements: 0 });
  });
});

describe('pageTotal', () => {
  it('counts only when the page does not tell the total', async () => {
    const never = async () => {
      throw new Error('no count expected');
    };
    await expect(pageTotal(3, { page: 2, size: 20 }, never)).resolves.toBe(43);
    await expect(pageTotal(20, { page: 0, size: 20 }, never, 25)).resolves.toBe(25);
    await expect(pageTotal(20, { page: 0, size: 20 }, async () => 30, 10)).resolves.toBe(30);
    await expect(pageTotal(0, { page: 5, size: 20 }, async () => 42)).resolves.toBe(42);
  });
});

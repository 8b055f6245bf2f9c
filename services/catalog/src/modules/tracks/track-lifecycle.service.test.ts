import { describe, expect, it } from 'vitest';
import type { Track } from '@msp/contracts';
import { ArtistTrackCountChanged, TrackChanged, TrackDeleted, TrackPublished, TrackUploaded, TrackUploadStatus } from '@msp/events';
import { outboxRecorder } from '@msp/testing/fakes';
import { admin, ann, bob, readTrack } from '../../../test/unit/fakes.js';
import type { TrackRow } from './track.mapper.js';
import { TrackAccess } from './track-access.js';
import { TrackEvents } from './track-events.js';
import { TrackLifecycleService, type TrackLifecycleServiceDeps } from './track-lifecycle.service.js';
import type { ReadTrack } from './track-reads.repository.js';
import type { Tx } from './tracks.repository.js';

/** One track (bob's unless told), the files removed and the cover images stored. */
function world(initial: ReadTrack | null = readTrack()) {
  const { tx, events } = outboxRecorder({ correlationIds: true });
  let row = initial;
  const removed: string[][] = [];
  const coverRemovals: Array<ReadonlyArray<string | null>> = [];
  let transactions = 0;
  const repo: TrackLifecycleServiceDeps['repo'] = {
    transaction: async (fn) => {
      transactions += 1;
      return fn(tx as unknown as Tx);
    },
    restartProcessing: async () => {
      row = { ...row!, state: 'PROCESSING', statusProgress: 20, statusStep: 'Processing started' };
      return {
        original: { originalKey: 'uploads/o.mp3', originalFormat: 'mp3', originalSize: 1234n, coverUploadKey: null },
        next: { ...row, processingAttempt: 2 },
      };
    },
    update: async (_tx, _id, changes) => {
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      row = { ...row!, ...defined };
      return row;
    },
    username: async () => 'bob',
    findById: async () => row,
    softDelete: async () => {
      row = { ...row!, deletedAt: new Date() };
      return ['uploads/o.mp3'];
    },
    setSecretToken: async (_id, secretToken) => ({ secretToken }),
  };
  const presenter = {
    assetUrl: (key: string | null) => (key ? `https://cdn/${key}` : null),
    presentOne: async (r: TrackRow) => ({ id: r.id, isPrivate: r.isPrivate }) as Track,
  };
  const access = new TrackAccess({
    byId: async (id) => (row && row.id === id ? row : null),
    byIdForViewer: async () => null,
  });
  const trackEvents = new TrackEvents({ countPublic: async () => 4, setTrackCount: async () => undefined }, presenter);
  const service = new TrackLifecycleService({
    repo,
    access,
    events: trackEvents,
    presenter,
    storage: {
      bucket: 'catalog',
      list: async (prefix) => [`${prefix}hls/index.m3u8`],
      remove: async (keys) => {
        removed.push(keys);
      },
    },
    covers: {
      store: async () => 'public/new/cover.jpg',
      remove: async (keys) => {
        coverRemovals.push(keys);
      },
    },
    webBaseUrl: 'https://web.test/',
  });
  return { service, events, removed, coverRemovals, row: () => row, transactions: () => transactions };
}

const types = (events: Array<{ type: string }>) => events.map((e) => e.type);

describe('TRK-3 upload status', () => {
  it("answers the owner's status, and TRACK_NOT_FOUND to anyone else (even an admin)", async () => {
    await expect(world(readTrack({ state: 'PROCESSING', statusProgress: 40 })).service.status(7, bob)).resolves.toMatchObject({
      trackId: 7,
      status: 'PROCESSING',
      progressPercentage: 40,
      trackResponse: null,
    });
    await expect(world().service.status(7, bob)).resolves.toMatchObject({ status: 'FINISHED', trackResponse: { id: 7 } });
    await expect(world().service.status(7, admin)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world().service.status(7, ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

describe('TRK-4 retry processing', () => {
  it('sends a FAILED track back to the worker with the next attempt and its status', async () => {
    const w = world(readTrack({ state: 'FAILED', isPrivate: true, publishedAt: null }));
    await expect(w.service.retry(7, bob, 'corr')).resolves.toMatchObject({ status: 'PROCESSING', progressPercentage: 20 });
    expect(types(w.events)).toEqual([TrackUploaded.type, TrackUploadStatus.type, TrackChanged.type]);
    expect(w.events[0]!.data).toMatchObject({ trackId: 7, attempt: 2, bucket: 'catalog', originalKey: 'uploads/o.mp3', sizeBytes: 1234 });
  });

  it('refuses any other state with INVALID_TRACK_STATE', async () => {
    const w = world(readTrack({ state: 'FINISHED' }));
    await expect(w.service.retry(7, bob, 'c')).rejects.toMatchObject({ code: 'INVALID_TRACK_STATE' });
    expect(w.transactions()).toBe(0);
  });
});

describe('TRK-5 publish a track (R2)', () => {
  it('makes a private finished track public, emits TrackPublished the first time and recounts the artist (R9)', async () => {
    const w = world(readTrack({ isPrivate: true, publishedAt: null }));
    const result = await w.service.publish(7, bob, 'c');
    expect(result).toMatchObject({ id: 7, slug: 'song', permalink: 'https://web.test/bob/song' });
    expect(types(w.events)).toEqual([TrackChanged.type, TrackPublished.type, ArtistTrackCountChanged.type]);
    expect(w.events[2]!.data).toEqual({ userId: 2, trackCount: 4 });
  });

  it('answers ALREADY_PUBLISHED for a public track and INVALID_TRACK_STATE for an unfinished one', async () => {
    await expect(world().service.publish(7, bob, 'c')).rejects.toMatchObject({ code: 'ALREADY_PUBLISHED' });
    await expect(world(readTrack({ state: 'PROCESSING', isPrivate: true, publishedAt: null })).service.publish(7, bob, 'c')).rejects.toMatchObject({
      code: 'INVALID_TRACK_STATE',
    });
  });

  it('re-publishing a once-published private track keeps its first publishedAt and emits no second TrackPublished', async () => {
    const first = new Date('2024-01-01T00:00:00Z');
    const w = world(readTrack({ isPrivate: true, publishedAt: first }));
    await expect(w.service.publish(7, bob, 'c')).resolves.toMatchObject({ publishedAt: first.toISOString() });
    expect(types(w.events)).toEqual([TrackChanged.type, ArtistTrackCountChanged.type]);
  });
});

describe('TRK-8 update a track', () => {
  it('answers FORBIDDEN to another caller who can see the track and TRACK_NOT_FOUND when they cannot', async () => {
    await expect(world().service.update(7, ann, { title: 'x' }, null, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(world(readTrack({ isPrivate: true })).service.update(7, ann, { title: 'x' }, null, 'c')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });

  it('making a finished private track public sets publishedAt and emits TrackPublished (R2)', async () => {
    const w = world(readTrack({ isPrivate: true, publishedAt: null }));
    await w.service.update(7, bob, { isPrivate: false }, null, 'c');
    expect(w.row()!.publishedAt).toBeInstanceOf(Date);
    expect(types(w.events)).toEqual([TrackChanged.type, TrackPublished.type, ArtistTrackCountChanged.type]);
  });

  it('replaces the cover: the new one is stored first, the old one removed after the change', async () => {
    const w = world(readTrack({ coverKey: 'public/old/cover.jpg' }));
    await w.service.update(7, bob, {}, Buffer.from('img'), 'c');
    expect(w.row()!.coverKey).toBe('public/new/cover.jpg');
    expect(w.coverRemovals).toEqual([['public/old/cover.jpg']]);
  });
});

describe('TRK-9 / MOD-11 delete a track', () => {
  it('soft-deletes, emits TrackDeleted and the recount of a counted track, then removes its files', async () => {
    const w = world();
    await w.service.delete(7, bob, false, 'corr');
    expect(types(w.events)).toEqual([TrackDeleted.type, ArtistTrackCountChanged.type]);
    expect(w.events[0]!.data).toEqual({ trackId: 7, artistId: 2, byAdmin: false });
    expect(w.removed).toEqual([['uploads/o.mp3', 'tracks/7/hls/index.m3u8']]);
  });

  it('an admin deletes any track (MOD-11), a private one without a recount', async () => {
    const w = world(readTrack({ isPrivate: true }));
    await w.service.delete(7, admin, true, 'c');
    expect(types(w.events)).toEqual([TrackDeleted.type]);
    expect(w.events[0]!.data).toMatchObject({ byAdmin: true });
  });

  it('answers TRACK_NOT_FOUND for a deleted track and FORBIDDEN to a non-owner through TRK-9', async () => {
    await expect(world(readTrack({ deletedAt: new Date() })).service.delete(7, admin, true, 'c')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world().service.delete(7, ann, false, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('TRK-10 delete the cover, TRK-11 / TRK-12 secret tokens (R5)', () => {
  it('deleting the cover emits TrackChanged; without a cover nothing happens', async () => {
    const w = world(readTrack({ coverKey: 'public/c/cover.jpg' }));
    await w.service.deleteCover(7, bob, 'c');
    expect(types(w.events)).toEqual([TrackChanged.type]);
    expect(w.coverRemovals).toEqual([['public/c/cover.jpg']]);
    const none = world();
    await none.service.deleteCover(7, bob, 'c');
    expect(none.transactions()).toBe(0);
  });

  it('gives the token to the owner only and regenerates a new 32-character one', async () => {
    await expect(world().service.secretToken(7, bob)).resolves.toEqual({ secretToken: 'tok' });
    await expect(world().service.secretToken(7, ann)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const { secretToken } = await world().service.regenerateToken(7, bob);
    expect(secretToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

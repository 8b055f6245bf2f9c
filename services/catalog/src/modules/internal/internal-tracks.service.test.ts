import { describe, expect, it } from 'vitest';
import type { Track } from '@msp/contracts';
import type { Caller } from '@msp/http';
import { admin, ann, bob, readTrack } from '../../../test/unit/fakes.js';
import type { TrackPresenter } from '../tracks/track-presenter.js';
import type { ReadTrack, TrackReadsRepository } from '../tracks/track-reads.repository.js';
import { InternalTracksService } from './internal-tracks.service.js';

/** The reads answer `rows` in the asked order; the presenter renders each as its id and records the caller. */
function world(rows: ReadTrack[]) {
  const asked: Array<{ ids: readonly number[]; viewerId: number }> = [];
  const presented: Array<{ viewer: Caller | null; offline: boolean | undefined }> = [];
  const reads: Pick<TrackReadsRepository, 'inOrder'> = {
    inOrder: async (ids, viewerId) => {
      asked.push({ ids, viewerId });
      return ids.flatMap((id) => rows.filter((row) => row.id === id));
    },
  };
  const presenter: Pick<TrackPresenter, 'present'> = {
    present: async (shown, viewer, options = {}) => {
      presented.push({ viewer, offline: options.offline });
      return shown.map((row) => ({ id: row.id }) as Track);
    },
  };
  return { service: new InternalTracksService(reads, presenter), asked, presented };
}

const ids = (tracks: Track[]) => tracks.map((t) => t.id);
const request = (caller: Caller | null, trackIds: number[]) => ({ viewerId: caller?.userId ?? null, viewerRole: caller?.role ?? 'LISTENER', trackIds });

describe('INTERNAL tracks batch read', () => {
  const rows = [
    readTrack({ id: 1 }),
    readTrack({ id: 2, isPrivate: true }),
    readTrack({ id: 3, state: 'PROCESSING' }),
    readTrack({ id: 4, heldBack: true }),
    readTrack({ id: 5, artistHidden: true }),
    readTrack({ id: 6, blocked: true }),
    readTrack({ id: 7, deletedAt: new Date() }),
  ];

  it('R2, R7, R14: leaves out what the viewer may not see, in the asked order, duplicates collapsed, one read', async () => {
    const w = world(rows);
    expect(ids(await w.service.render(request(ann, [6, 1, 1, 2, 3, 4, 5, 7])))).toEqual([1]);
    expect(w.asked).toEqual([{ ids: [6, 1, 2, 3, 4, 5, 7], viewerId: 1 }]);
  });

  it('shows the artist and admins everything but deleted tracks', async () => {
    expect(ids(await world(rows).service.render(request(bob, [1, 2, 3, 4, 5, 6, 7])))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ids(await world(rows).service.render(request(admin, [7, 2])))).toEqual([2]);
  });

  it('renders offline (no call back to social) for an anonymous viewer as id 0', async () => {
    const w = world(rows);
    await w.service.render(request(null, [1]));
    expect(w.asked[0]!.viewerId).toBe(0);
    expect(w.presented).toEqual([{ viewer: null, offline: true }]);
  });

  it('answers an empty request without a read', async () => {
    const w = world(rows);
    await expect(w.service.render(request(ann, []))).resolves.toEqual([]);
    expect(w.asked).toEqual([]);
  });
});

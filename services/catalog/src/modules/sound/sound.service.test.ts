import { describe, expect, it } from 'vitest';
import { admin, ann, bob, readTrack } from '../../../test/unit/fakes.js';
import type { ReadTrack } from '../tracks/track-reads.repository.js';
import { gainDb, verdicts } from './loudness-rules.js';
import { SoundService } from './sound.service.js';

const measured = { integratedLufs: -10, rangeLu: 6, truePeakDbtp: -2 };
const stored = { shortTermLufs: [-11, null, -9], duplicateOf: 3 };

function service(row: ReadTrack | null, report: typeof stored | null = stored) {
  return new SoundService({ byId: async () => row }, { report: async () => report }, -14);
}

describe('SND-1 loudness report', () => {
  it("gives the artist and admins the track's measurement, its gain towards the target and the stored curve", async () => {
    const track = readTrack({ loudness: measured });
    const expected = {
      trackId: 7,
      integratedLufs: -10,
      rangeLu: 6,
      truePeakDbtp: -2,
      gainDb: gainDb(measured, -14),
      targetLufs: -14,
      shortTermLufs: [-11, null, -9],
      verdicts: verdicts(measured, -14),
      duplicateOf: 3,
    };
    await expect(service(track).report(7, bob)).resolves.toEqual(expected);
    await expect(service(track).report(7, admin)).resolves.toEqual(expected);
  });

  it('answers TRACK_NOT_FOUND to anyone else, even for a public track, and for a deleted one', async () => {
    await expect(service(readTrack({ loudness: measured })).report(7, ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(readTrack({ deletedAt: new Date() })).report(7, bob)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(null).report(7, bob)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });

  it('answers INVALID_TRACK_STATE before processing finished', async () => {
    await expect(service(readTrack({ state: 'PROCESSING' })).report(7, bob)).rejects.toMatchObject({ code: 'INVALID_TRACK_STATE' });
  });

  it('reports nulls, no gain and no curve for a track without a measurement', async () => {
    const report = await service(readTrack({ loudness: null })).report(7, bob);
    expect(report).toMatchObject({ integratedLufs: null, rangeLu: null, truePeakDbtp: null, gainDb: 0, shortTermLufs: [], duplicateOf: 3 });
  });
});

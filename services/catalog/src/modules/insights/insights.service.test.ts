import { describe, expect, it } from 'vitest';
import { admin, ann, bob } from '../../../test/unit/fakes.js';
import type { SeriesRow } from './insights.repository.js';
import { InsightsService, MAX_RANGE_DAYS, resolveRange } from './insights.service.js';

type Deps = ConstructorParameters<typeof InsightsService>;

const now = new Date('2025-03-10T15:30:00Z');
const row = (period: string, plays: number): SeriesRow => ({ period, plays, completions: 1, likes: 0, reposts: 0, comments: 0, downloads: 0 });

/** The insights reads and the play lookups as fakes; only what a test touches answers. */
function world(owner: { artistId: number; durationSeconds: number | null } | null = { artistId: bob.userId, durationSeconds: 100 }) {
  const progress: Array<{ playId: string; pct: number }> = [];
  const voided: unknown[] = [];
  const repo = {
    trackOwner: async () => owner,
    trackDayReport: async () =>
      owner && {
        owner,
        series: [row('2025-03-01', 3), row('2025-03-02', 4)],
        sources: [
          { source: '', plays: 2 },
          { source: 'feed', plays: 5 },
        ],
        retention: { plays: 3, reached: [3, 2, 1] },
      },
    trackHours: async () => [row('2025-03-10T14:00:00Z', 1)],
    recordProgress: async (_id: number, events: Array<{ playId: string; pct: number }>) => {
      progress.push(...events);
      return events.length;
    },
  };
  const playLog = {
    voidPlays: async (input: unknown) => {
      voided.push(input);
      return { voided: 1 };
    },
  };
  const counting = { playsOf: async (_t: number, _w: string, ids: Array<string | undefined>) => ids.map((id) => (id === 'gone' ? null : (id ?? 'latest'))) };
  const service = new InsightsService(repo as unknown as Deps[0], playLog as unknown as Deps[1], counting as unknown as Deps[2]);
  return { service, progress, voided };
}

describe('INS-1 / INS-2 ranges', () => {
  it('defaults to the last 30 days, or the last 48 hours when hourly', () => {
    expect(resolveRange({}, now)).toMatchObject({ granularity: 'day', fromDay: '2025-02-09', toDay: '2025-03-10' });
    const hourly = resolveRange({ granularity: 'hour' }, now);
    expect(hourly.toHour.toISOString()).toBe('2025-03-10T15:00:00.000Z');
    expect(hourly.fromHour.toISOString()).toBe('2025-03-08T16:00:00.000Z');
  });

  it('refuses from after to, more than two years, hours older than 48 hours and bad dates with the field', () => {
    const fieldOf = (query: Parameters<typeof resolveRange>[0]) => {
      try {
        resolveRange(query, now);
      } catch (err) {
        expect(err).toMatchObject({ code: 'VALIDATION_FAILED' });
        return (err as { errors: Array<{ field: string }> }).errors.map((e) => e.field);
      }
      throw new Error('expected a validation error');
    };
    expect(fieldOf({ from: '2025-03-05', to: '2025-03-01' })).toEqual(['from']);
    expect(fieldOf({ from: '2023-01-01', to: '2025-01-02' })).toEqual(['to']);
    expect(fieldOf({ from: '2025-03-01T00:00:00Z', granularity: 'hour' })).toEqual(['from']);
    expect(fieldOf({ from: 'yesterday', to: '10000-01-01' })).toEqual(['to', 'from']);
    expect(resolveRange({ from: '2023-03-10', to: '2025-03-09' }, now).fromDay).toBe('2023-03-10');
    expect(MAX_RANGE_DAYS).toBe(731);
  });
});

describe('INS-1 track insights', () => {
  it("answers TRACK_NOT_FOUND to anyone but the track's artist and admins", async () => {
    await expect(world().service.track(7, ann, {})).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(null).service.track(7, bob, {})).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world().service.track(7, admin, {})).resolves.toMatchObject({ trackId: 7 });
  });

  it("answers TRACK_NOT_FOUND before a bad range to anyone but the track's artist, and the range's 400 to the artist", async () => {
    await expect(world().service.track(7, ann, { from: 'yesterday' })).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world(null).service.track(7, bob, { from: 'yesterday' })).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world().service.track(7, bob, { from: 'yesterday' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('gives the hours as the series when hourly, with the sources and retention of their days', async () => {
    const result = await world().service.track(7, bob, { granularity: 'hour' });
    expect(result.series).toEqual([row('2025-03-10T14:00:00Z', 1)]);
    expect(result.totals).toMatchObject({ plays: 1 });
    expect(result.sources).toHaveLength(2);
    expect(result.retention.plays).toBe(3);
  });

  it('sums the series, names the empty source "unknown" and gives retention as shares of the plays', async () => {
    const result = await world().service.track(7, bob, { from: '2025-03-01', to: '2025-03-02' });
    expect(result.totals).toMatchObject({ plays: 7, completions: 2 });
    expect(result.sources).toEqual([
      { source: 'unknown', plays: 2 },
      { source: 'feed', plays: 5 },
    ]);
    expect(result.retention.points).toEqual([
      { percent: 0, share: 1 },
      { percent: 1, share: 0.6667 },
      { percent: 2, share: 0.3333 },
    ]);
  });

  it('writes CSV with a header and quotes text only when needed', () => {
    const lines = [...world().service.trackCsv({ series: [row('2025-03-01', 3), row('a,"b"', 1)] })];
    expect(lines).toEqual(['period,plays,completions,likes,reposts,comments,downloads\n', '2025-03-01,3,1,0,0,0,0\n', '"a,""b""",1,1,0,0,0,0\n']);
  });
});

describe('INS-4 listening progress', () => {
  it('clamps positions to the duration, ignores events of no known play, and counts both', async () => {
    const w = world();
    const result = await w.service.progress(7, 'u:1', [
      { position: 50, playId: 'p1' },
      { position: 500 },
      { position: -5, playId: 'p2' },
      { position: 10, playId: 'gone' },
    ]);
    expect(result).toEqual({ accepted: 3, ignored: 1 });
    expect(w.progress).toEqual([
      { playId: 'p1', pct: 50 },
      { playId: 'latest', pct: 100 },
      { playId: 'p2', pct: 0 },
    ]);
  });

  it('ignores events without a known duration and answers TRACK_NOT_FOUND for an unknown track', async () => {
    await expect(world({ artistId: 2, durationSeconds: null }).service.progress(7, 'u:1', [{ position: 5 }])).resolves.toEqual({ accepted: 0, ignored: 1 });
    await expect(world(null).service.progress(7, 'u:1', [])).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

describe('INS-3 void plays', () => {
  it('needs exactly one of listenerId and clientHash, and from not after to', async () => {
    const w = world();
    const range = { from: '2025-03-01T00:00:00Z', to: '2025-03-02T00:00:00Z', reason: 'bot' };
    await expect(w.service.voidPlays(admin, range)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'listenerId' }] });
    await expect(w.service.voidPlays(admin, { ...range, listenerId: 1, clientHash: 'h' })).rejects.toMatchObject({ errors: [{ field: 'listenerId' }] });
    await expect(w.service.voidPlays(admin, { ...range, listenerId: 1, from: '2025-03-03T00:00:00Z' })).rejects.toMatchObject({ errors: [{ field: 'from' }] });
    expect(w.voided).toEqual([]);
    await w.service.voidPlays(admin, { ...range, clientHash: 'h' });
    expect(w.voided).toEqual([{ adminId: 9, listenerId: null, clientHash: 'h', from: new Date(range.from), to: new Date(range.to), reason: 'bot' }]);
  });
});

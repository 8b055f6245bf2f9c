import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { ArtistDayRow, InsightsRepository, SeriesRow } from './insights.repository.js';
import type { PlayCounting } from './play-counting.js';
import type { PlayLogRepository } from './play-log.repository.js';
import { DAY_MS, utcDay } from './utc-days.js';

const HOUR_MS = 3_600_000;
/** Longest range of INS-1/INS-2: two years (a leap day included). */
export const MAX_RANGE_DAYS = 731;
/** Hourly series cover the last 48 hours (older hourly rollups are pruned). */
export const HOURLY_WINDOW_HOURS = 48;
/** Default range: the last 30 days, or the last 48 hours when hourly. */
const DEFAULT_DAYS = 30;

export type Granularity = 'day' | 'hour';

export interface RangeQuery {
  from?: string;
  to?: string;
  granularity?: Granularity;
}

/** A resolved range: day bounds (YYYY-MM-DD, inclusive) and, for hours, the first and last hour start. */
export interface Range {
  granularity: Granularity;
  fromDay: string;
  toDay: string;
  fromHour: Date;
  toHour: Date;
}

const SERIES_COLUMNS = ['plays', 'completions', 'likes', 'reposts', 'comments', 'downloads'] as const;
type Totals = Record<(typeof SERIES_COLUMNS)[number], number>;

const floorTo = (at: Date, unit: number) => new Date(Math.floor(at.getTime() / unit) * unit);

function parseInstant(value: string | undefined, field: string, errors: Array<{ field: string; message: string }>): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1970 || at.getUTCFullYear() > 9999) {
    errors.push({ field, message: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time between 1970 and 9999' });
    return undefined;
  }
  return at;
}

/**
 * The range of INS-1/INS-2 from the query: `from` and `to` are dates or date-times (UTC), both
 * included (whole days, or whole hours when hourly); `to` defaults to now, `from` to 30 days (48
 * hours) before `to`. From after to, more than two years, or an hourly range older than 48 hours:
 * 400 with field errors.
 */
export function resolveRange(query: RangeQuery, now = new Date()): Range {
  const errors: Array<{ field: string; message: string }> = [];
  const granularity = query.granularity ?? 'day';
  const unit = granularity === 'hour' ? HOUR_MS : DAY_MS;
  const to = floorTo(parseInstant(query.to, 'to', errors) ?? now, unit);
  const from = floorTo(
    parseInstant(query.from, 'from', errors) ?? new Date(to.getTime() - (granularity === 'hour' ? HOURLY_WINDOW_HOURS - 1 : DEFAULT_DAYS - 1) * unit),
    unit,
  );
  if (errors.length === 0) {
    if (from > to) errors.push({ field: 'from', message: 'must not be after to' });
    else if (to.getTime() - from.getTime() >= MAX_RANGE_DAYS * DAY_MS)
      errors.push({ field: 'to', message: `the range may cover at most ${MAX_RANGE_DAYS} days` });
    else if (granularity === 'hour' && from.getTime() < floorTo(now, HOUR_MS).getTime() - (HOURLY_WINDOW_HOURS - 1) * HOUR_MS) {
      errors.push({ field: 'from', message: `hourly series cover the last ${HOURLY_WINDOW_HOURS} hours` });
    }
  }
  if (errors.length > 0) throw AppError.validation(errors);
  return { granularity, fromDay: utcDay(from), toDay: utcDay(to), fromHour: from, toHour: to };
}

function totals(rows: SeriesRow[]): Totals {
  const sum = Object.fromEntries(SERIES_COLUMNS.map((c) => [c, 0])) as Totals;
  for (const row of rows) for (const c of SERIES_COLUMNS) sum[c] += row[c];
  return sum;
}

/** One CSV line: numbers as they are, text quoted when it needs to be. */
function csvLine(values: Array<string | number>): string {
  return `${values.map((v) => (typeof v === 'number' || !/[",\n\r]/.test(v) ? String(v) : `"${v.replace(/"/g, '""')}"`)).join(',')}\n`;
}

/** A track's insights are its artist's and the admins'; anyone else is answered 404, as for a private track. */
const mayRead = (owner: { artistId: number }, caller: Caller) => owner.artistId === caller.userId || caller.role === 'ADMIN';

/** INS-1..INS-4: artist insights over the play log's rollups (docs/insights.md). */
export class InsightsService {
  constructor(
    private readonly repo: InsightsRepository,
    private readonly playLog: PlayLogRepository,
    private readonly counting: PlayCounting,
  ) {}

  /** INS-1: by day one statement; by hour the day statement (owner, sources, retention) beside the hours. */
  async track(trackId: number, caller: Caller, query: RangeQuery) {
    let range: Range;
    try {
      range = resolveRange(query);
    } catch (err) {
      // Someone else's track answers 404 whatever the range, as before the range was read.
      const owner = await this.repo.trackOwner(trackId);
      if (!owner || !mayRead(owner, caller)) throw new AppError('TRACK_NOT_FOUND');
      throw err;
    }
    const [report, hours] = await Promise.all([
      this.repo.trackDayReport(trackId, range.fromDay, range.toDay),
      range.granularity === 'hour' ? this.repo.trackHours(trackId, range.fromHour, range.toHour) : null,
    ]);
    if (!report || !mayRead(report.owner, caller)) throw new AppError('TRACK_NOT_FOUND');
    const series = hours ?? report.series;
    const { sources, retention } = report;
    return {
      trackId,
      from: range.granularity === 'hour' ? range.fromHour.toISOString() : range.fromDay,
      to: range.granularity === 'hour' ? range.toHour.toISOString() : range.toDay,
      granularity: range.granularity,
      totals: totals(series),
      series,
      sources: sources.map((s) => ({ source: s.source === '' ? 'unknown' : s.source, plays: s.plays })),
      retention: {
        plays: retention.plays,
        points: retention.reached.map((n, pct) => ({ percent: pct, share: retention.plays === 0 ? 0 : Math.round((n / retention.plays) * 10_000) / 10_000 })),
      },
    };
  }

  /** INS-2 */
  async artist(caller: Caller, query: Omit<RangeQuery, 'granularity'>) {
    const range = resolveRange({ ...query, granularity: 'day' });
    const [days, topTracks, topListeners] = await Promise.all([
      this.repo.artistDays(caller.userId, range.fromDay, range.toDay),
      this.repo.topTracks(caller.userId, range.fromDay, range.toDay),
      this.repo.topListeners(caller.userId, range.fromDay, range.toDay),
    ]);
    const sums = totals(days);
    const followers = days.reduce((acc, d) => ({ gained: acc.gained + d.followersGained, lost: acc.lost + d.followersLost }), { gained: 0, lost: 0 });
    return {
      artistId: caller.userId,
      from: range.fromDay,
      to: range.toDay,
      totals: { ...sums, followersGained: followers.gained, followersLost: followers.lost },
      days,
      topTracks,
      topListeners,
    };
  }

  /** INS-1 as CSV lines: a header and one line per period (the JSON's `series`). */
  *trackCsv(result: { series: SeriesRow[] }): Generator<string> {
    yield csvLine(['period', ...SERIES_COLUMNS]);
    for (const row of result.series) yield csvLine([row.period, ...SERIES_COLUMNS.map((c) => row[c])]);
  }

  /** INS-2 as CSV lines: a header and one line per day (the JSON's `days`). */
  *artistCsv(result: { days: ArtistDayRow[] }): Generator<string> {
    yield csvLine(['day', ...SERIES_COLUMNS, 'followersGained', 'followersLost']);
    for (const row of result.days) yield csvLine([row.period, ...SERIES_COLUMNS.map((c) => row[c]), row.followersGained, row.followersLost]);
  }

  /**
   * INS-4: listening progress of plays of the track. Each event belongs to the named play (from
   * TRK-17's answer) or else to the listener's latest play of the track; events of no known play
   * are ignored. The position is clamped to [0, duration]; the duration is the event's or the track's.
   */
  async progress(trackId: number, who: string, events: Array<{ position: number; duration?: number; playId?: string }>) {
    const track = await this.repo.trackOwner(trackId);
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    const plays = await this.counting.playsOf(
      trackId,
      who,
      events.map((e) => e.playId),
    );
    const known: Array<{ playId: string; pct: number }> = [];
    events.forEach((event, i) => {
      const duration = event.duration ?? track.durationSeconds;
      const playId = plays[i];
      if (!duration || duration <= 0 || !playId) return;
      const position = Math.min(Math.max(event.position, 0), duration);
      known.push({ playId, pct: Math.min(100, Math.floor((position / duration) * 100)) });
    });
    await this.repo.recordProgress(trackId, known);
    return { accepted: known.length, ignored: events.length - known.length };
  }

  /** INS-3: void a listener's (or a client's) plays in [from, to); counts follow at once. */
  async voidPlays(admin: Caller, input: { listenerId?: number; clientHash?: string; from: string; to: string; reason: string }) {
    const from = new Date(input.from);
    const to = new Date(input.to);
    const errors: Array<{ field: string; message: string }> = [];
    if ((input.listenerId === undefined) === (input.clientHash === undefined))
      errors.push({ field: 'listenerId', message: 'give exactly one of listenerId and clientHash' });
    if (from > to) errors.push({ field: 'from', message: 'must not be after to' });
    if (errors.length > 0) throw AppError.validation(errors);
    const result = await this.playLog.voidPlays({
      adminId: admin.userId,
      listenerId: input.listenerId ?? null,
      clientHash: input.clientHash ?? null,
      from,
      to,
      reason: input.reason,
    });
    return result;
  }

  /** TRK-19 answered a file. */
  recordDownload(trackId: number, userId: number): Promise<void> {
    return this.repo.recordDownload(trackId, userId);
  }
}

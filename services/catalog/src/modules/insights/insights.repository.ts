import type pg from 'pg';
import { pgStatement, raw, sql, type Sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import { dayNames, monthSplit, type MonthSplit } from './utc-days.js';

export interface SeriesRow {
  /** The UTC day (YYYY-MM-DD) or hour (ISO, whole hour). */
  period: string;
  plays: number;
  completions: number;
  likes: number;
  reposts: number;
  comments: number;
  downloads: number;
}

export interface ArtistDayRow extends SeriesRow {
  followersGained: number;
  followersLost: number;
}

export interface TopListener {
  username: string;
  displayName: string;
  plays: number;
}

export interface TopTrack {
  trackId: number;
  title: string;
  plays: number;
}

/**
 * Tracks read per page by `topTracks`, and the pages read before it sums the range for every track
 * (11 + 5 × 20 tracks). The first page is the 10 best by all-time plays and the next one: over a
 * range that holds all of their plays that is enough, and each track read costs a range sum of
 * its days (a heap row each), so the first page reads no more than that.
 */
const TOP_TRACK_FIRST_PAGE = 11;
const TOP_TRACK_PAGE = 20;
const TOP_TRACK_PAGES = 6;

/**
 * Listeners read per page by `topListeners` (a smaller first page: over a long range the 10th best
 * is usually found among the first few dozen), and the pages read before it sums the range for
 * everyone (25 + 10 × 100 listeners).
 */
const TOP_LISTENER_FIRST_PAGE = 25;
const TOP_LISTENER_PAGE = 100;
const TOP_LISTENER_PAGES = 11;

/** Points of the retention curve: 0 %, 1 %, …, 99 % of the duration. */
export const RETENTION_POINTS = 100;

/** How many plays reported progress, and how many of them reached at least 0 %, 1 %, …, 99 %. */
export interface Retention {
  plays: number;
  reached: number[];
}

/** INS-1 by day: who owns the track, and everything its report shows. */
export interface TrackDayReport {
  owner: { artistId: number; durationSeconds: number | null };
  series: SeriesRow[];
  sources: Array<{ source: string; plays: number }>;
  retention: Retention;
}

/** The retention curve from the plays that stopped at each percentage (100: played to the end). */
function retentionOf(rows: Array<{ pct: number; plays: number }>): Retention {
  const stoppedAt = new Array<number>(RETENTION_POINTS + 1).fill(0);
  for (const row of rows) stoppedAt[Math.min(Math.max(row.pct, 0), RETENTION_POINTS)]! += row.plays;
  const reached = new Array<number>(RETENTION_POINTS).fill(0);
  let running = stoppedAt[RETENTION_POINTS]!;
  for (let pct = RETENTION_POINTS - 1; pct >= 0; pct--) {
    running += stoppedAt[pct]!;
    reached[pct] = running;
  }
  return { plays: running, reached };
}

/**
 * The days of a range come from PostgreSQL as one text: every day's numbers in day order, one
 * entry for every day from `from`, all joined by commas (`string_agg`). A JSON object per day
 * (`json_build_object` of 7–9 fields × 365 days) cost PostgreSQL about 3 ms for a year, more than
 * reading the rows, and parsing it cost catalog more than splitting this text does.
 */
function seriesOf(text: string | null, from: string): SeriesRow[] {
  const v = text ? text.split(',') : [];
  const names = dayNames(from, v.length / 6);
  return names.map((period, i) => {
    const j = i * 6;
    return { period, plays: +v[j]!, completions: +v[j + 1]!, likes: +v[j + 2]!, reposts: +v[j + 3]!, comments: +v[j + 4]!, downloads: +v[j + 5]! };
  });
}

/** The same for INS-2's days (the series' six numbers, then the followers gained and lost). */
function artistDaysOf(text: string | null, from: string): ArtistDayRow[] {
  const v = text ? text.split(',') : [];
  const names = dayNames(from, v.length / 8);
  return names.map((period, i) => {
    const j = i * 8;
    return {
      period,
      plays: +v[j]!,
      completions: +v[j + 1]!,
      likes: +v[j + 2]!,
      reposts: +v[j + 3]!,
      comments: +v[j + 4]!,
      downloads: +v[j + 5]!,
      followersGained: +v[j + 6]!,
      followersLost: +v[j + 7]!,
    };
  });
}

/** The counted plays of track `track` (a column reference) over the split range: whole months, then the days around them. */
function rangePlays(track: Sql, r: MonthSplit): Sql {
  return sql`((SELECT coalesce(sum(m.plays), 0) FROM track_play_months m WHERE m.track_id = ${track} AND m.month >= ${r.monthFrom}::date AND m.month < ${r.monthTo}::date)
            + (SELECT coalesce(sum(s.plays), 0) FROM track_daily_stats s WHERE s.track_id = ${track} AND s.day >= ${r.from}::date AND s.day < ${r.headTo}::date)
            + (SELECT coalesce(sum(s.plays), 0) FROM track_daily_stats s WHERE s.track_id = ${track} AND s.day >= ${r.tailFrom}::date AND s.day <= ${r.to}::date))`;
}

/** A rollup column (fixed names below), 0 when the day has no row. */
const num = (column: string) => sql`coalesce(${raw(column)}, 0)::int`;

/** Reads of the rollups behind INS-1 and INS-2, and the writes of progress (INS-4), downloads and follows. */
export class InsightsRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The track's artist, or null when it does not exist or is deleted. */
  async trackOwner(trackId: number): Promise<{ artistId: number; durationSeconds: number | null } | null> {
    const { rows } = await this.pool.query<{ artistId: number; durationSeconds: number | null }>(
      pgStatement(
        sql`SELECT artist_id AS "artistId", duration_seconds AS "durationSeconds" FROM tracks WHERE id = ${trackId} AND deleted_at IS NULL`,
        'insights_track_owner',
      ),
    );
    return rows[0] ?? null;
  }

  /**
   * INS-1 per UTC day in [from, to] (dates), in one statement: the track's owner (null when it does
   * not exist or is deleted), the series, the counted plays by source and the retention counts.
   * The series is one row per day of trending's day counters (plays, completions, likes, reposts,
   * comments); the sources are summed over whole months from `track_play_months` and over the days
   * around them from `track_play_days` (a year: about 12 + 61 rows per source instead of 365). One
   * row comes back: the series as one text of numbers (`seriesOf`), the sources and retention as
   * JSON; a caller who may not read them is refused by the service before any of it is used.
   */
  async trackDayReport(trackId: number, from: string, to: string): Promise<TrackDayReport | null> {
    const range = monthSplit(from, to);
    const { rows } = await this.pool.query<{
      artistId: number;
      durationSeconds: number | null;
      series: string | null;
      sources: Array<{ source: string; plays: number }> | null;
      retention: Array<{ pct: number; plays: number }> | null;
    }>(
      pgStatement(
        sql`WITH s AS MATERIALIZED (SELECT day, plays, completions, likes, reposts, comments FROM track_daily_stats
                                     WHERE track_id = ${trackId} AND day BETWEEN ${from}::date AND ${to}::date),
              dl AS (SELECT (downloaded_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n FROM track_downloads
                      WHERE track_id = ${trackId} AND downloaded_at >= (${from}::date::timestamp AT TIME ZONE 'UTC')
                        AND downloaded_at < ((${to}::date + 1)::timestamp AT TIME ZONE 'UTC') GROUP BY 1)
         SELECT t.artist_id AS "artistId", t.duration_seconds AS "durationSeconds",
                (SELECT string_agg(concat_ws(',', ${num('s.plays')}, ${num('s.completions')}, ${num('s.likes')}, ${num('s.reposts')}, ${num('s.comments')}, ${num('dl.n')}), ',' ORDER BY g.d)
                   FROM (SELECT d::date AS d FROM generate_series(${from}::date::timestamp, ${to}::date::timestamp, interval '1 day') AS gs(d)) AS g
                   LEFT JOIN s ON s.day = g.d
                   LEFT JOIN dl ON dl.day = g.d) AS series,
                (SELECT json_agg(json_build_object('source', x.source, 'plays', x.plays) ORDER BY x.plays DESC, x.source)
                   FROM (SELECT source, sum(plays)::int AS plays
                           FROM (SELECT source, plays FROM track_play_months
                                  WHERE track_id = ${trackId} AND month >= ${range.monthFrom}::date AND month < ${range.monthTo}::date
                                 UNION ALL
                                 SELECT source, plays FROM track_play_days WHERE track_id = ${trackId} AND day >= ${range.from}::date AND day < ${range.headTo}::date
                                 UNION ALL
                                 SELECT source, plays FROM track_play_days WHERE track_id = ${trackId} AND day >= ${range.tailFrom}::date AND day <= ${range.to}::date) u
                          GROUP BY source HAVING sum(plays) > 0) AS x) AS sources,
                (SELECT json_agg(json_build_object('pct', r.pct, 'plays', r.plays)) FROM track_retention r WHERE r.track_id = ${trackId} AND r.plays > 0) AS retention
           FROM tracks t WHERE t.id = ${trackId} AND t.deleted_at IS NULL`,
        'insights_track_day_report',
      ),
    );
    const row = rows[0];
    if (!row) return null;
    return {
      owner: { artistId: row.artistId, durationSeconds: row.durationSeconds },
      series: seriesOf(row.series, from),
      sources: row.sources ?? [],
      retention: retentionOf(row.retention ?? []),
    };
  }

  /** INS-1 per UTC hour in [from, to] (hour starts, within the last 48 hours). */
  async trackHours(trackId: number, from: Date, to: Date): Promise<SeriesRow[]> {
    const { rows } = await this.pool.query<SeriesRow>(
      pgStatement(sql`WITH g AS (SELECT h FROM generate_series(${from}::timestamptz, ${to}::timestamptz, interval '1 hour') AS h),
            e AS (SELECT date_trunc('hour', created_at, 'UTC') AS h, count(*) FILTER (WHERE kind = 'L') AS likes, count(*) FILTER (WHERE kind = 'R') AS reposts
                    FROM track_engagements WHERE track_id = ${trackId} AND created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz + interval '1 hour' GROUP BY 1),
            c AS (SELECT date_trunc('hour', created_at, 'UTC') AS h, count(*) AS n
                    FROM track_comments WHERE track_id = ${trackId} AND created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz + interval '1 hour' GROUP BY 1),
            dl AS (SELECT date_trunc('hour', downloaded_at, 'UTC') AS h, count(*) AS n
                    FROM track_downloads WHERE track_id = ${trackId} AND downloaded_at >= ${from}::timestamptz AND downloaded_at < ${to}::timestamptz + interval '1 hour' GROUP BY 1)
       SELECT to_char(g.h AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:00:00"Z"') AS period, ${num('p.plays')} AS plays, ${num('p.completions')} AS completions, ${num('e.likes')} AS likes,
              ${num('e.reposts')} AS reposts, ${num('c.n')} AS comments, ${num('dl.n')} AS downloads
         FROM g LEFT JOIN track_play_hours p ON p.track_id = ${trackId} AND p.hour = g.h
         LEFT JOIN e ON e.h = g.h LEFT JOIN c ON c.h = g.h LEFT JOIN dl ON dl.h = g.h
        ORDER BY g.h`),
    );
    return rows;
  }

  /** Plays with progress that reached at least 0 %, 1 %, …, 99 % of the duration, and how many plays reported progress. */
  async retention(trackId: number): Promise<Retention> {
    const { rows } = await this.pool.query<{ pct: number; plays: number }>(
      pgStatement(sql`SELECT pct, plays FROM track_retention WHERE track_id = ${trackId} AND plays > 0`, 'insights_retention'),
    );
    return retentionOf(rows);
  }

  /**
   * INS-2 per UTC day for every track of the artist, with follower gains and losses: one row per
   * day of each per-artist rollup (plays and completions: `artist_play_days`; likes, reposts and
   * comments: `artist_engagement_days`, trending's day counters summed over the artist's tracks by
   * triggers), downloads counted from the artist's tracks' downloads of the range.
   */
  async artistDays(artistId: number, from: string, to: string): Promise<ArtistDayRow[]> {
    // One row holding the days as one text (artistDaysOf): one value instead of a row of nine per day.
    const { rows } = await this.pool.query<{ days: string | null }>(
      pgStatement(
        sql`WITH dl AS (SELECT (downloaded_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n FROM track_downloads
                   WHERE track_id IN (SELECT id FROM tracks WHERE artist_id = ${artistId})
                     AND downloaded_at >= (${from}::date::timestamp AT TIME ZONE 'UTC') AND downloaded_at < ((${to}::date + 1)::timestamp AT TIME ZONE 'UTC') GROUP BY 1)
       SELECT string_agg(concat_ws(',', ${num('p.plays')}, ${num('p.completions')}, ${num('s.likes')}, ${num('s.reposts')}, ${num('s.comments')}, ${num('dl.n')},
                                   ${num('f.gained')}, ${num('f.lost')}), ',' ORDER BY g.d) AS days
         FROM (SELECT d::date AS d FROM generate_series(${from}::date::timestamp, ${to}::date::timestamp, interval '1 day') AS s(d)) AS g
         LEFT JOIN artist_play_days p ON p.artist_id = ${artistId} AND p.day = g.d AND p.day BETWEEN ${from}::date AND ${to}::date
         LEFT JOIN artist_engagement_days s ON s.artist_id = ${artistId} AND s.day = g.d AND s.day BETWEEN ${from}::date AND ${to}::date
         LEFT JOIN dl ON dl.day = g.d
         LEFT JOIN follow_days f ON f.user_id = ${artistId} AND f.day = g.d AND f.day BETWEEN ${from}::date AND ${to}::date`,
        'insights_artist_days',
      ),
    );
    return artistDaysOf(rows[0]?.days ?? null, from);
  }

  /**
   * The artist's 10 most played tracks over the days. Exact, without summing every track's days:
   * the tracks are read by their all-time counted plays (`tracks.play_count` plus the plays not
   * folded into it yet, `track_play_deltas`: no range can exceed it), a page at a time, each one's plays in the range summed from trending's day counters
   * (`track_daily_stats`: one row per track and day); the search stops once the 10th best has more
   * plays in the range than the next track has in all. After TOP_TRACK_PAGES pages, every track's
   * days are summed instead (`topTracksBySum`).
   */
  async topTracks(artistId: number, from: string, to: string): Promise<TopTrack[]> {
    const range = monthSplit(from, to);
    const best: TopTrack[] = [];
    let offset = 0;
    for (let page = 0; page < TOP_TRACK_PAGES; page++) {
      const limit = page === 0 ? TOP_TRACK_FIRST_PAGE : TOP_TRACK_PAGE;
      type Candidate = TopTrack & { total: number };
      const { rows }: pg.QueryResult<Candidate> = await this.pool.query<Candidate>(
        pgStatement(
          sql`WITH t AS (SELECT t.id, t.title, t.play_count + coalesce(d.plays, 0) AS play_count
                      FROM tracks t LEFT JOIN track_play_deltas d ON d.track_id = t.id
                     WHERE t.artist_id = ${artistId} AND t.play_count + coalesce(d.plays, 0) > 0 ORDER BY 3 DESC, 1 LIMIT ${limit} OFFSET ${offset})
         SELECT t.id AS "trackId", t.title, t.play_count AS total,
                ${rangePlays(raw('t.id'), range)}::int AS plays
           FROM t ORDER BY t.play_count DESC, t.id`,
          'insights_top_tracks',
        ),
      );
      for (const row of rows) if (row.plays > 0) best.push({ trackId: row.trackId, title: row.title, plays: row.plays });
      best.sort((x, y) => y.plays - x.plays || x.trackId - y.trackId);
      best.splice(10);
      const last: Candidate | undefined = rows.at(-1);
      if (!last || rows.length < limit || (best.length === 10 && best[9]!.plays > last.total)) return best;
      offset += limit;
    }
    return this.topTracksBySum(artistId, range);
  }

  /** The same by summing every track's months and days in the range. */
  async topTracksBySum(artistId: number, r: MonthSplit): Promise<TopTrack[]> {
    const { rows } = await this.pool.query<TopTrack>(
      pgStatement(sql`WITH a AS (SELECT id FROM tracks WHERE artist_id = ${artistId})
       SELECT t.id AS "trackId", t.title, x.plays::int AS plays
         FROM (SELECT track_id, sum(plays) AS plays
                 FROM (SELECT track_id, plays FROM track_play_months WHERE track_id IN (SELECT id FROM a) AND month >= ${r.monthFrom}::date AND month < ${r.monthTo}::date
                       UNION ALL
                       SELECT track_id, plays FROM track_daily_stats
                        WHERE track_id IN (SELECT id FROM a)
                          AND ((day >= ${r.from}::date AND day < ${r.headTo}::date) OR (day >= ${r.tailFrom}::date AND day <= ${r.to}::date))) p
                GROUP BY track_id HAVING sum(plays) > 0 ORDER BY 2 DESC, 1 LIMIT 10) x
         JOIN tracks t ON t.id = x.track_id
        ORDER BY x.plays DESC, t.id`),
    );
    return rows;
  }

  /**
   * The 10 signed-in listeners who played the artist most over the days, public profiles only:
   * private, banned and deleted users are left out before the limit (R8, R14); the artist too.
   * Exact, without summing every listener's days: listeners are read by their all-time plays of
   * the artist (`artist_listener_totals`), a page at a time, and each one's plays in the range
   * summed from their own days; no listener further down can have more plays in the range than
   * their all-time plays, so the search stops once the 10th best has more than that. Over a long
   * range that is the first page or two. When a short range makes the bound useless (more than
   * TOP_LISTENER_PAGES pages), the range's days are summed for everyone instead (`topListenersBySum`).
   */
  async topListeners(artistId: number, from: string, to: string): Promise<TopListener[]> {
    const best: Array<TopListener & { listenerId: number }> = [];
    let after = null as { plays: number; listenerId: number } | null;
    for (let page = 0; page < TOP_LISTENER_PAGES; page++) {
      type Candidate = { listenerId: number; total: number; plays: number; username: string | null; displayName: string | null };
      const { rows }: pg.QueryResult<Candidate> = await this.pool.query<Candidate>(
        pgStatement(
          sql`WITH c AS (SELECT listener_id, plays AS total FROM artist_listener_totals
                     WHERE artist_id = ${artistId} AND plays > 0 AND (${after?.plays ?? null}::int IS NULL OR plays < ${after?.plays ?? null} OR (plays = ${after?.plays ?? null} AND listener_id > ${after?.listenerId ?? null}))
                     ORDER BY plays DESC, listener_id LIMIT ${page === 0 ? TOP_LISTENER_FIRST_PAGE : TOP_LISTENER_PAGE})
         SELECT c.listener_id AS "listenerId", c.total, u.username, u.display_name AS "displayName",
                CASE WHEN u.user_id IS NULL OR c.listener_id = ${artistId} THEN 0
                     ELSE (SELECT coalesce(sum(d.plays), 0) FROM artist_listener_days d
                            WHERE d.artist_id = ${artistId} AND d.listener_id = c.listener_id AND d.day BETWEEN ${from}::date AND ${to}::date) END::int AS plays
           FROM c LEFT JOIN LATERAL (SELECT user_id, username, display_name FROM user_summaries
                                      WHERE user_id = c.listener_id AND NOT is_private AND NOT is_banned AND NOT is_deleted LIMIT 1) u ON true
          ORDER BY c.total DESC, c.listener_id`,
          'insights_top_listeners',
        ),
      );
      for (const row of rows) {
        if (row.plays > 0 && row.username !== null)
          best.push({ listenerId: row.listenerId, username: row.username, displayName: row.displayName ?? '', plays: row.plays });
      }
      best.sort((x, y) => y.plays - x.plays || (x.username < y.username ? -1 : x.username > y.username ? 1 : 0));
      best.splice(10);
      const last: Candidate | undefined = rows.at(-1);
      // Everyone read, or no one further down can reach the 10th (their all-time plays are at most the last one's).
      if (!last || rows.length < (page === 0 ? TOP_LISTENER_FIRST_PAGE : TOP_LISTENER_PAGE) || (best.length === 10 && best[9]!.plays > last.total)) {
        return best.map(({ username, displayName, plays }) => ({ username, displayName, plays }));
      }
      after = { plays: last.total, listenerId: last.listenerId };
    }
    return this.topListenersBySum(artistId, from, to);
  }

  /**
   * The same by summing every listener's days in the range (the 200 most active are checked first,
   * an index probe each, all of them only when fewer than 10 of those have public profiles).
   */
  async topListenersBySum(artistId: number, from: string, to: string, candidates = 200): Promise<TopListener[]> {
    const { rows } = await this.pool.query<TopListener>(
      pgStatement(sql`WITH x AS (SELECT listener_id, sum(plays) AS plays FROM artist_listener_days
                   WHERE artist_id = ${artistId} AND day BETWEEN ${from}::date AND ${to}::date AND listener_id <> ${artistId} GROUP BY listener_id HAVING sum(plays) > 0)
       SELECT u.username, u.display_name AS "displayName", c.plays::int AS plays
         FROM (SELECT * FROM x ORDER BY plays DESC, listener_id LIMIT ${candidates}) c
         JOIN user_summaries u ON u.user_id = c.listener_id AND NOT u.is_private AND NOT u.is_banned AND NOT u.is_deleted
        ORDER BY c.plays DESC, u.username LIMIT 10`),
    );
    // Fewer than 10 public listeners among the candidates while more may exist: look at all of them.
    if (rows.length < 10 && candidates < Number.MAX_SAFE_INTEGER) return this.topListenersBySum(artistId, from, to, Number.MAX_SAFE_INTEGER);
    return rows;
  }

  /**
   * INS-4: raises each play's furthest point to the events' highest percent and moves the play
   * between the track's retention buckets (from its old percent to its new one), in one statement
   * (`old` reads the statement's snapshot: the rows before `up` changed them).
   */
  async recordProgress(trackId: number, events: Array<{ playId: string; pct: number }>): Promise<number> {
    if (events.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      pgStatement(sql`WITH ev AS (SELECT play_id, max(pct)::smallint AS pct FROM unnest(${events.map((e) => e.playId)}::bigint[], ${events.map((e) => e.pct)}::smallint[]) AS e(play_id, pct) GROUP BY play_id),
            old AS (SELECT p.play_id, p.max_pct FROM play_progress p JOIN ev USING (play_id)),
            up AS (INSERT INTO play_progress (play_id, track_id, max_pct) SELECT play_id, ${trackId}, pct FROM ev
                   ON CONFLICT (play_id) DO UPDATE SET max_pct = EXCLUDED.max_pct, updated_at = now() WHERE play_progress.max_pct < EXCLUDED.max_pct
                   RETURNING play_id, max_pct),
            deltas AS (SELECT max_pct AS pct, 1 AS d FROM up UNION ALL SELECT old.max_pct, -1 FROM up JOIN old USING (play_id))
       INSERT INTO track_retention (track_id, pct, plays) SELECT ${trackId}, pct, sum(d) FROM deltas GROUP BY pct
       ON CONFLICT (track_id, pct) DO UPDATE SET plays = track_retention.plays + EXCLUDED.plays`),
    );
    return rowCount ?? 0;
  }

  /** TRK-19 answered a file: one download of the track. */
  async recordDownload(trackId: number, userId: number): Promise<void> {
    await this.pool.query(pgStatement(sql`INSERT INTO track_downloads (track_id, user_id) VALUES (${trackId}, ${userId})`));
  }
}

/** A follow gained (+) or lost (−) by the followed user on the event's UTC day, in the consumer's transaction. */
export async function countFollow(tx: SqlExecutor, userId: number, at: string, gained: boolean): Promise<void> {
  const column = raw(gained ? 'gained' : 'lost');
  await tx.$executeRaw(
    sql`INSERT INTO follow_days (user_id, day, ${column}) VALUES (${userId}, (${at}::timestamptz AT TIME ZONE 'UTC')::date, 1)
     ON CONFLICT (user_id, day) DO UPDATE SET ${column} = follow_days.${column} + 1`,
  );
}

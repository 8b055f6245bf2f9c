import type pg from 'pg';
import { pgStatement, raw, sql, type Sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import { TRENDING_DAYS, TRENDING_WEIGHTS } from '../discovery/trending-rules.js';
import { DAY_MS, utcDay } from './utc-days.js';

/** Where a play started (TRK-17/18 `source`); absent when the client did not say. */
export const PLAY_SOURCES = ['app', 'embed', 'playlist', 'station', 'search', 'feed', 'profile'] as const;
export type PlaySource = (typeof PLAY_SOURCES)[number];

/** Why a logged play does not count: an automated client, a flood, a sweep of tracks, or a repeat within the window. */
export type PlayFlag = 'bot' | 'flood' | 'sweep' | 'repeat';

export interface PlayRecord {
  at: Date;
  trackId: number;
  artistId: number;
  kind: 'play' | 'complete';
  listenerId: number | null;
  clientHash: string | null;
  source: PlaySource | null;
  seconds: number | null;
  flag: PlayFlag | null;
}

const WINDOW_START = raw(`((now() AT TIME ZONE 'utc')::date - ${Math.trunc(TRENDING_DAYS) - 1})`);

/**
 * The rollup changes of a set of play events, as CTEs reading `changed` (rows of track_id,
 * artist_id, kind, listener_id, source, played_at, counted) and adding `sign` × each counted
 * play or completion to: the per-day-and-source and per-month-and-source rollups, the per-hour rollup (last 48 h only), the
 * track's pending playCount/completedPlayCount (`track_play_deltas`, folded into `tracks` with the
 * trending score by `foldCounts`), trending's day counters, the artist's day, the artist's
 * listener days and listener totals. Counts never go below zero. Used by the ingest (+1 for one
 * new row), the admin void (−1) and a ban or unban (−1/+1): every count is the log's counted rows.
 * Built from the fixed table and column names below only (no value): `raw`, once per sign.
 */
function rollupCtes(sign: 1 | -1): Sql {
  return raw(rollupCtesText(sign));
}

function rollupCtesText(sign: 1 | -1): string {
  /** Adds (sign 1, an upsert) or takes away (sign −1, an update never below zero) grouped counts. */
  const apply = (name: string, table: string, keys: Array<[string, string]>, values: Array<[string, string]>, where = 'true') => {
    const groupBy = keys.map((_, i) => i + 1).join(', ');
    const select = `SELECT ${[...keys, ...values].map(([col, expr]) => `${expr} AS ${col}`).join(', ')} FROM c WHERE ${where} GROUP BY ${groupBy}`;
    if (sign === 1) {
      const cols = [...keys, ...values].map(([col]) => col).join(', ');
      const set = values.map(([col]) => `${col} = ${table}.${col} + EXCLUDED.${col}`).join(', ');
      // Rows in key order: two writers upserting the same rows lock them in the same order.
      return `${name} AS (INSERT INTO ${table} (${cols}) ${select} ORDER BY ${groupBy} ON CONFLICT (${keys.map(([col]) => col).join(', ')}) DO UPDATE SET ${set})`;
    }
    const set = values.map(([col]) => `${col} = GREATEST(t.${col} - x.${col}, 0)`).join(', ');
    return `${name} AS (UPDATE ${table} t SET ${set} FROM (${select}) x WHERE ${keys.map(([col]) => `t.${col} = x.${col}`).join(' AND ')})`;
  };
  const day: [string, string] = ['day', `(played_at AT TIME ZONE 'UTC')::date`];
  const month: [string, string] = ['month', `date_trunc('month', played_at AT TIME ZONE 'UTC')::date`];
  const plays = `count(*) FILTER (WHERE kind = 'P')`;
  const completions = `count(*) FILTER (WHERE kind = 'C')`;
  return `
  c AS (SELECT * FROM changed WHERE counted),
  ${apply(
    'days',
    'track_play_days',
    [['track_id', 'track_id'], day, ['source', `coalesce(source, '')`]],
    [
      ['plays', plays],
      ['completions', completions],
    ],
  )},
  ${apply(
    'months',
    'track_play_months',
    [['track_id', 'track_id'], month, ['source', `coalesce(source, '')`]],
    [
      ['plays', plays],
      ['completions', completions],
    ],
  )},
  ${apply(
    'hours',
    'track_play_hours',
    [
      ['track_id', 'track_id'],
      ['hour', `date_trunc('hour', played_at, 'UTC')`],
    ],
    [
      ['plays', plays],
      ['completions', completions],
    ],
    `played_at >= now() - interval '48 hours'`,
  )},
  per_track AS (SELECT track_id, ${plays} AS p, ${completions} AS cp FROM c GROUP BY 1),
  deltas AS (
    INSERT INTO track_play_deltas (track_id, plays, completions)
    SELECT track_id, ${sign} * p, ${sign} * cp FROM per_track ORDER BY 1
    ON CONFLICT (track_id) DO UPDATE SET plays = track_play_deltas.plays + EXCLUDED.plays, completions = track_play_deltas.completions + EXCLUDED.completions),
  ${apply(
    'artist_days',
    'artist_play_days',
    [['artist_id', 'artist_id'], day],
    [
      ['plays', plays],
      ['completions', completions],
    ],
  )},
  ${apply(
    'stats',
    'track_daily_stats',
    [['track_id', 'track_id'], day],
    [
      ['plays', plays],
      ['completions', completions],
    ],
  )},
  ${apply('listeners', 'artist_listener_days', [['artist_id', 'artist_id'], day, ['listener_id', 'listener_id']], [['plays', 'count(*)']], `kind = 'P' AND listener_id IS NOT NULL`)},
  ${apply(
    'listener_totals',
    'artist_listener_totals',
    [
      ['artist_id', 'artist_id'],
      ['listener_id', 'listener_id'],
    ],
    [['plays', 'count(*)']],
    `kind = 'P' AND listener_id IS NOT NULL`,
  )}`;
}

/**
 * One batch of plays (the group-commit writer below), in one statement: `input` numbers the rows
 * (their ids drawn from the log's identity), `changed` inserts them all (a row is held when its
 * listener is banned, R14), the rollup CTEs add every counted one (each in key order, the CTEs in
 * the same order in every batch: two batches in flight lock shared rows in the same order and
 * cannot deadlock; no `tracks` row is written, see `foldCounts`), `history` records each signed-in listener's latest play of each track in their
 * listening history (USR-17) unless they turned it off (R8: `showHistory`), and the answer maps
 * each input row (its ordinal) to its id and whether it counted.
 */
const ROLLUP_ADD = rollupCtes(1);
const ROLLUP_TAKE = rollupCtes(-1);

const insertBatchSql = (plays: readonly PlayRecord[]) => sql`
WITH input AS MATERIALIZED (
  SELECT nextval(pg_get_serial_sequence('play_events', 'id')) AS id, u.*
    FROM unnest(${plays.map((p) => p.at.toISOString())}::timestamptz[], ${plays.map((p) => p.trackId)}::int[], ${plays.map((p) => p.artistId)}::int[],
                ${plays.map((p) => (p.kind === 'play' ? 'P' : 'C'))}::char(1)[], ${plays.map((p) => p.listenerId)}::int[], ${plays.map((p) => p.clientHash)}::text[],
                ${plays.map((p) => p.source)}::text[], ${plays.map((p) => p.seconds)}::int[], ${plays.map((p) => p.flag)}::text[])
         WITH ORDINALITY AS u(played_at, track_id, artist_id, kind, listener_id, client_hash, source, seconds, flag, ord)
),
changed AS (
  INSERT INTO play_events (id, played_at, track_id, artist_id, kind, listener_id, client_hash, source, seconds, flag, held)
  SELECT i.id, i.played_at, i.track_id, i.artist_id, i.kind, i.listener_id, i.client_hash, i.source, i.seconds, i.flag,
         -- A probe by key per signed-in play (a join would read the whole projection for a large batch).
         i.listener_id IS NOT NULL AND coalesce((SELECT b.is_banned FROM user_summaries b WHERE b.user_id = i.listener_id), false)
    FROM input i
  RETURNING id, track_id, artist_id, kind, listener_id, source, played_at, (flag IS NULL AND NOT held) AS counted
),${ROLLUP_ADD},
  history AS (
    INSERT INTO listening_history (user_id, track_id, last_played_at)
    SELECT h.listener_id, h.track_id, max(h.played_at) FROM changed h LEFT JOIN user_summaries u ON u.user_id = h.listener_id
     WHERE h.kind = 'P' AND h.listener_id IS NOT NULL AND coalesce(u.show_history, true)
     GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (user_id, track_id) DO UPDATE SET last_played_at = EXCLUDED.last_played_at)
SELECT i.ord::int AS ord, c.id::text AS id, c.counted FROM changed c JOIN input i USING (id)`;

/** The statement that marks rows and re-derives every count they touched, reading `changed`. */
const adjust = (changedSql: Sql, sign: 1 | -1) => sql`
WITH changed AS (${changedSql}),${sign === 1 ? ROLLUP_ADD : ROLLUP_TAKE}
SELECT count(*)::int AS matched, count(*) FILTER (WHERE counted)::int AS counted FROM changed`;

const RETURNING = sql`RETURNING track_id, artist_id, kind, listener_id, source, played_at`;

/** An admin void (INS-3): rows of the listener (or client) in [from, to) not voided yet. */
const voidSql = (voidId: string, column: 'listener_id' | 'client_hash', key: number | string | null, from: Date, to: Date) =>
  adjust(
    sql`UPDATE play_events SET void_id = ${voidId} WHERE ${raw(column)} = ${key} AND played_at >= ${from}::timestamptz AND played_at < ${to}::timestamptz AND void_id IS NULL
     ${RETURNING}, (flag IS NULL AND NOT held) AS counted`,
    -1,
  );

/** R14: a ban holds the listener's plays (they stop counting); the unban releases them. */
const holdSql = (userId: number) =>
  adjust(sql`UPDATE play_events SET held = true WHERE listener_id = ${userId} AND NOT held ${RETURNING}, (flag IS NULL AND void_id IS NULL) AS counted`, -1);
const releaseSql = (userId: number) =>
  adjust(sql`UPDATE play_events SET held = false WHERE listener_id = ${userId} AND held ${RETURNING}, (flag IS NULL AND void_id IS NULL) AS counted`, 1);

/** The trending score of a day's counters `st`: fixed column names and the code's numeric weights. */
const TRENDING_SCORE = raw(
  (Object.keys(TRENDING_WEIGHTS) as Array<keyof typeof TRENDING_WEIGHTS>).map((k) => `st.${k} * ${Number(TRENDING_WEIGHTS[k])}`).join(' + '),
);

/**
 * Folds the pending counts (`track_play_deltas`) into `tracks` in one statement (one transaction):
 * takes the pending rows at least `maxAgeMs` old or holding at least `minPlays` plays (or completions) in
 * track order (the order the play statements upsert them in: no
 * deadlock), adds them to `play_count`/`completed_play_count`, recomputes those tracks' trending
 * scores from trending's day counters (R18, as discovery's recompute does) and deletes the rows. A
 * read adds the pending row to the track's counts (track-reads.repository), so it sees every
 * counted play exactly once before, during and after a fold. Rows a batch commits meanwhile wait
 * for the next fold.
 */
const foldSql = (maxAgeMs: number, minPlays: number, limit: number, skipLocked: boolean) => sql`
WITH d AS (SELECT track_id, plays, completions FROM track_play_deltas
            WHERE since <= now() - ${maxAgeMs}::int * interval '1 millisecond' OR abs(plays) >= ${minPlays} OR abs(completions) >= ${minPlays}
            ORDER BY track_id LIMIT ${limit} FOR UPDATE ${raw(skipLocked ? 'SKIP LOCKED' : '')}),
gone AS (DELETE FROM track_play_deltas x USING d WHERE x.track_id = d.track_id),
s AS (SELECT st.track_id, GREATEST(sum(${TRENDING_SCORE}), 0)::int AS score
        FROM track_daily_stats st JOIN d ON d.track_id = st.track_id WHERE st.day >= ${WINDOW_START} GROUP BY 1),
folded AS (
  UPDATE tracks t
     SET play_count = GREATEST(t.play_count + d.plays, 0),
         completed_play_count = GREATEST(t.completed_play_count + d.completions, 0),
         trending_score = coalesce(s.score, 0)
    FROM d LEFT JOIN s ON s.track_id = d.track_id
   WHERE t.id = d.track_id
  RETURNING t.id)
SELECT count(*)::int AS n FROM folded`;

/** How the play log groups concurrent plays into one statement (`PlayLogRepository`). */
export interface PlayBatching {
  /** Plays in one statement at most (a full batch is written at once). */
  maxPlays: number;
  /** How long the first play of a batch waits for others to join it (ms). */
  maxDelayMs: number;
  /** Batches written at once (each on its own connection); more wait and gather meanwhile. */
  maxInFlight: number;
}

export const DEFAULT_PLAY_BATCHING: PlayBatching = { maxPlays: 500, maxDelayMs: 2, maxInFlight: 2 };

interface PendingPlay {
  play: PlayRecord;
  resolve(value: { id: string; counted: boolean }): void;
  reject(err: unknown): void;
}

/** PostgreSQL's deadlock_detected and serialization_failure: the statement changed nothing and may run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * The play log (`play_events`, partitioned by UTC day) and its rollups, kept in the same
 * statement as the insert: the answer of TRK-17 already includes the play in every count.
 *
 * Group commit: concurrent plays wait together (at most `maxDelayMs`, or until `maxPlays` are
 * waiting) and are written by ONE statement — one multi-row insert into the log and one upsert
 * per rollup row the batch touches — and each caller is answered only after that statement has
 * committed, so an acknowledged play is never lost. At most `maxInFlight` batches are written at
 * once (the next one gathers meanwhile); they take shared rows in one order (insertBatchSql). A
 * deadlock with another writer (a void, a ban) rolls the whole statement back and it runs again.
 */
export class PlayLogRepository {
  /** Days whose partition this process has made sure of. */
  private readonly partitions = new Set<string>();
  private queue: PendingPlay[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly batching: PlayBatching = DEFAULT_PLAY_BATCHING,
  ) {}

  /** Creates the partitions of `days` days from `from` on (idempotent; the function takes a lock). */
  async ensurePartitions(from: Date, days: number): Promise<void> {
    const start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
    const wanted = Array.from({ length: days }, (_, i) => utcDay(start + i * DAY_MS)).filter((d) => !this.partitions.has(d));
    if (wanted.length === 0) return;
    await this.pool.query(pgStatement(sql`SELECT msp_play_partition(d) FROM unnest(${wanted}::date[]) AS d`));
    for (const d of wanted) this.partitions.add(d);
  }

  /**
   * Logs one play or completion and, when it counts, every rollup; answers its id and whether it
   * counted once the batch it joined has committed.
   */
  record(play: PlayRecord): Promise<{ id: string; counted: boolean }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ play, resolve, reject });
      if (this.queue.length >= this.batching.maxPlays) this.schedule(0);
      else this.schedule(this.batching.maxDelayMs);
    });
  }

  /** Writes the waiting plays after `delayMs` unless a batch is being written (it schedules the next one). */
  private schedule(delayMs: number): void {
    if (this.inFlight >= this.batching.maxInFlight) return;
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.batching.maxInFlight || this.queue.length === 0) return;
    this.inFlight++;
    const batch = this.queue.splice(0, this.batching.maxPlays);
    try {
      const rows = await this.write(batch.map((p) => p.play));
      const answered = new Set<number>();
      for (const row of rows) {
        batch[row.ord - 1]!.resolve({ id: row.id, counted: row.counted });
        answered.add(row.ord - 1);
      }
      // Never leave a caller waiting (the statement answers every row; this is a safety net).
      batch.forEach((pending, i) => answered.has(i) || pending.reject(new Error('the play batch did not answer this play')));
    } catch (err) {
      for (const pending of batch) pending.reject(err);
    } finally {
      this.inFlight--;
      // Plays that arrived meanwhile have waited at least as long as the batch took: write them now.
      if (this.queue.length > 0) this.schedule(0);
    }
  }

  private async write(plays: PlayRecord[]): Promise<Array<{ ord: number; id: string; counted: boolean }>> {
    for (const day of new Set(plays.map((p) => utcDay(p.at)))) await this.ensurePartitions(new Date(`${day}T00:00:00Z`), 1);
    const statement = pgStatement(insertBatchSql(plays), 'catalog_play_batch');
    for (let attempt = 1; ; attempt++) {
      try {
        // Named: each connection plans the statement once (its arrays keep one generic plan good).
        return (await this.pool.query<{ ord: number; id: string; counted: boolean }>(statement)).rows;
      } catch (err) {
        if (attempt >= 5 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
        await new Promise((r) => setTimeout(r, 5 * attempt));
      }
    }
  }

  /** INS-3: voids the matching rows and takes their counted plays out of every count, in one transaction. */
  async voidPlays(input: {
    adminId: number;
    listenerId: number | null;
    clientHash: string | null;
    from: Date;
    to: Date;
    reason: string;
  }): Promise<{ voidId: string; voided: number; uncounted: number }> {
    const client = await this.pool.connect();
    try {
      await client.query(pgStatement(sql`BEGIN`));
      const { rows } = await client.query<{ id: string }>(
        pgStatement(sql`INSERT INTO play_voids (admin_id, listener_id, client_hash, from_at, to_at, reason, voided, uncounted)
         VALUES (${input.adminId}, ${input.listenerId}, ${input.clientHash}, ${input.from}, ${input.to}, ${input.reason}, 0, 0) RETURNING id::text`),
      );
      const voidId = rows[0]!.id;
      const column = input.listenerId !== null ? 'listener_id' : 'client_hash';
      const key = input.listenerId ?? input.clientHash;
      const counts = await client.query<{ matched: number; counted: number }>(pgStatement(voidSql(voidId, column, key, input.from, input.to)));
      const { matched, counted } = counts.rows[0]!;
      await client.query(pgStatement(sql`UPDATE play_voids SET voided = ${matched}, uncounted = ${counted} WHERE id = ${voidId}`));
      await client.query(pgStatement(sql`COMMIT`));
      client.release();
      return { voidId, voided: matched, uncounted: counted };
    } catch (err) {
      // A failed ROLLBACK leaves the connection unusable: it is destroyed (release(true)), and the
      // statement's own error is the one the caller needs.
      const broken = await client.query(pgStatement(sql`ROLLBACK`)).then(
        () => false,
        () => true,
      );
      client.release(broken);
      throw err;
    }
  }

  /**
   * Folds the pending counts into `tracks` (foldSql): the rows at least `maxAgeMs` old or holding
   * at least `minPlays` plays (by default every row); answers how many tracks changed. A chunk of
   * at most `chunk` tracks per transaction, so that a play batch waiting for a pending row waits for
   * one chunk's update of `tracks`, not the whole fold's. `skipLocked`: rows a play batch holds are
   * left for the next fold instead of waited for (the background fold; a caller that needs every
   * committed row folded leaves it off).
   */
  async foldCounts(maxAgeMs = 0, minPlays = 0, options: { chunk?: number; skipLocked?: boolean } = {}): Promise<number> {
    const chunk = options.chunk ?? FOLD_CHUNK;
    const skipLocked = options.skipLocked ?? false;
    let folded = 0;
    for (;;) {
      const n = await this.foldChunk(maxAgeMs, minPlays, chunk, skipLocked);
      folded += n;
      if (n < chunk) return folded;
    }
  }

  private async foldChunk(maxAgeMs: number, minPlays: number, chunk: number, skipLocked: boolean): Promise<number> {
    const statement = pgStatement(foldSql(maxAgeMs, minPlays, chunk, skipLocked), skipLocked ? 'catalog_play_fold_skip_locked' : 'catalog_play_fold');
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query<{ n: number }>(statement)).rows[0]?.n ?? 0;
      } catch (err) {
        if (attempt >= 5 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
        await new Promise((r) => setTimeout(r, 5 * attempt));
      }
    }
  }

  /** Drops hourly rollups older than 48 hours. */
  async pruneHours(): Promise<void> {
    await this.pool.query(pgStatement(sql`DELETE FROM track_play_hours WHERE hour < now() - interval '49 hours'`));
  }
}

/** R14 in the ban consumer's transaction: hold (ban) or release (unban) a listener's plays. */
export async function holdPlays(tx: SqlExecutor, userId: number, banned: boolean): Promise<void> {
  await tx.$queryRaw(banned ? holdSql(userId) : releaseSql(userId));
}

/** Tracks folded per transaction (`foldCounts`). */
const FOLD_CHUNK = 500;

/**
 * When a track's pending counts are folded into `tracks` (`foldCounts`, checked every second): after
 * `maxAgeMs` (PLAY_FOLD_SECONDS, 30 s by default), or at once when they hold `minPlays`. Reads add
 * the pending counts, so this decides only how fresh `tracks.play_count` and `trending_score` are
 * for the search and trending indexes, and how often a track's row (and its 16 indexes) is
 * rewritten: a track played 10 times in 30 s costs one update instead of ten.
 */
export const PLAY_FOLD = { maxAgeMs: 30_000, minPlays: 1_000 } as const;

/**
 * Partitions a week ahead (at start, then hourly), the 48-hour prune of hourly rollups (every 10
 * minutes) and the fold of pending counts into `tracks` (`fold`, checked every second, one
 * fold at a time).
 */
export function startPlayLogMaintenance(
  playLog: PlayLogRepository,
  logger: { warn(obj: object, msg: string): void },
  fold: { maxAgeMs: number; minPlays: number } = PLAY_FOLD,
): { stop(): Promise<void> } {
  const run = (what: string, job: () => Promise<void>) =>
    job().catch((err: unknown) => logger.warn({ err: (err as Error).message }, `play log ${what} failed; will retry`));
  const ahead = () => run('partitions', () => playLog.ensurePartitions(new Date(), 8));
  void ahead();
  let folding: Promise<void> | null = null;
  const foldNow = () => {
    folding ??= run('fold', async () => void (await playLog.foldCounts(fold.maxAgeMs, fold.minPlays, { skipLocked: true }))).finally(() => (folding = null));
  };
  const timers = [setInterval(ahead, 3_600_000), setInterval(() => void run('prune', () => playLog.pruneHours()), 600_000), setInterval(foldNow, 1_000)];
  for (const timer of timers) timer.unref();
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await folding;
    },
  };
}

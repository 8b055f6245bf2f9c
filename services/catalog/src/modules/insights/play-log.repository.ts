import type pg from 'pg';
import type { SqlExecutor } from '@msp/events';
import { TRENDING_DAYS, TRENDING_WEIGHTS } from '../discovery/trending-rules.js';

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

const WINDOW_START = `((now() AT TIME ZONE 'utc')::date - ${TRENDING_DAYS - 1})`;

/**
 * The rollup changes of a set of play events, as CTEs reading `changed` (rows of track_id,
 * artist_id, kind, listener_id, source, played_at, counted) and adding `sign` × each counted
 * play or completion to: the per-day-and-source rollup, the per-hour rollup (last 48 h only), the
 * track's playCount/completedPlayCount and trending score, trending's day counters, the
 * artist's day and the artist's listener days. Counts never go below zero. Used by the ingest (+1 for one new row),
 * the admin void (−1) and a ban or unban (−1/+1): every count is the log's counted rows.
 */
function rollupCtes(sign: 1 | -1): string {
  /** Adds (sign 1, an upsert) or takes away (sign −1, an update never below zero) grouped counts. */
  const apply = (name: string, table: string, keys: Array<[string, string]>, values: Array<[string, string]>, where = 'true') => {
    const groupBy = keys.map((_, i) => i + 1).join(', ');
    const select = `SELECT ${[...keys, ...values].map(([col, expr]) => `${expr} AS ${col}`).join(', ')} FROM c WHERE ${where} GROUP BY ${groupBy}`;
    if (sign === 1) {
      const cols = [...keys, ...values].map(([col]) => col).join(', ');
      const set = values.map(([col]) => `${col} = ${table}.${col} + EXCLUDED.${col}`).join(', ');
      return `${name} AS (INSERT INTO ${table} (${cols}) ${select} ON CONFLICT (${keys.map(([col]) => col).join(', ')}) DO UPDATE SET ${set})`;
    }
    const set = values.map(([col]) => `${col} = GREATEST(t.${col} - x.${col}, 0)`).join(', ');
    return `${name} AS (UPDATE ${table} t SET ${set} FROM (${select}) x WHERE ${keys.map(([col]) => `t.${col} = x.${col}`).join(' AND ')})`;
  };
  const day: [string, string] = ['day', `(played_at AT TIME ZONE 'UTC')::date`];
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
  per_track AS (
    SELECT track_id, ${plays} AS p, ${completions} AS cp,
           count(*) FILTER (WHERE kind = 'P' AND (played_at AT TIME ZONE 'UTC')::date >= ${WINDOW_START}) AS recent
      FROM c GROUP BY 1),
  tracks_done AS (
    UPDATE tracks t
       SET play_count = GREATEST(t.play_count + ${sign} * x.p, 0),
           completed_play_count = GREATEST(t.completed_play_count + ${sign} * x.cp, 0),
           trending_score = GREATEST(t.trending_score + ${sign} * x.recent * ${TRENDING_WEIGHTS.plays}, 0)
      FROM per_track x WHERE t.id = x.track_id),
  ${apply(
    'artist_days',
    'artist_play_days',
    [['artist_id', 'artist_id'], day],
    [
      ['plays', plays],
      ['completions', completions],
    ],
  )},
  ${apply('stats', 'track_daily_stats', [['track_id', 'track_id'], day], [['plays', 'count(*)']], `kind = 'P'`)},
  ${apply('listeners', 'artist_listener_days', [['artist_id', 'artist_id'], day, ['listener_id', 'listener_id']], [['plays', 'count(*)']], `kind = 'P' AND listener_id IS NOT NULL`)}`;
}

const INSERT_SQL = `
WITH changed AS (
  INSERT INTO play_events (played_at, track_id, artist_id, kind, listener_id, client_hash, source, seconds, flag, held)
  VALUES ($1::timestamptz, $2::int, $3::int, $4::char(1), $5::int, $6::text, $7::text, $8::int, $9::text,
          coalesce((SELECT is_banned FROM user_summaries WHERE user_id = $5::int), false))
  RETURNING id, track_id, artist_id, kind, listener_id, source, played_at, (flag IS NULL AND NOT held) AS counted
),${rollupCtes(1)}
SELECT id::text AS id, counted FROM changed`;

/** The statement that marks rows and re-derives every count they touched, reading `changed`. */
const adjust = (changedSql: string, sign: 1 | -1) => `
WITH changed AS (${changedSql}),${rollupCtes(sign)}
SELECT count(*)::int AS matched, count(*) FILTER (WHERE counted)::int AS counted FROM changed`;

const RETURNING = `RETURNING track_id, artist_id, kind, listener_id, source, played_at`;

/** An admin void (INS-3): rows of the listener (or client) in [from, to) not voided yet. */
const VOID_SQL = (column: 'listener_id' | 'client_hash') =>
  adjust(
    `UPDATE play_events SET void_id = $1 WHERE ${column} = $2 AND played_at >= $3::timestamptz AND played_at < $4::timestamptz AND void_id IS NULL
     ${RETURNING}, (flag IS NULL AND NOT held) AS counted`,
    -1,
  );

/** R14: a ban holds the listener's plays (they stop counting); the unban releases them. */
const HOLD_SQL = adjust(
  `UPDATE play_events SET held = true WHERE listener_id = $1 AND NOT held ${RETURNING}, (flag IS NULL AND void_id IS NULL) AS counted`,
  -1,
);
const RELEASE_SQL = adjust(
  `UPDATE play_events SET held = false WHERE listener_id = $1 AND held ${RETURNING}, (flag IS NULL AND void_id IS NULL) AS counted`,
  1,
);

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The play log (`play_events`, partitioned by UTC day) and its rollups, kept in the same
 * statement as each insert: the answer of TRK-17 already includes the play in every count.
 */
export class PlayLogRepository {
  /** Days whose partition this process has made sure of. */
  private readonly partitions = new Set<string>();

  constructor(private readonly pool: pg.Pool) {}

  /** Creates the partitions of `days` days from `from` on (idempotent; the function takes a lock). */
  async ensurePartitions(from: Date, days: number): Promise<void> {
    const start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
    const wanted = Array.from({ length: days }, (_, i) => dayOf(new Date(start + i * 86_400_000))).filter((d) => !this.partitions.has(d));
    if (wanted.length === 0) return;
    await this.pool.query(`SELECT msp_play_partition(d) FROM unnest($1::date[]) AS d`, [wanted]);
    for (const d of wanted) this.partitions.add(d);
  }

  /** Logs one play or completion and, when it counts, every rollup; answers its id and whether it counted. */
  async record(play: PlayRecord): Promise<{ id: string; counted: boolean }> {
    await this.ensurePartitions(play.at, 1);
    const result = await this.pool.query<{ id: string; counted: boolean }>(INSERT_SQL, [
      play.at.toISOString(),
      play.trackId,
      play.artistId,
      play.kind === 'play' ? 'P' : 'C',
      play.listenerId,
      play.clientHash,
      play.source,
      play.seconds,
      play.flag,
    ]);
    return result.rows[0]!;
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
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO play_voids (admin_id, listener_id, client_hash, from_at, to_at, reason, voided, uncounted)
         VALUES ($1, $2, $3, $4, $5, $6, 0, 0) RETURNING id::text`,
        [input.adminId, input.listenerId, input.clientHash, input.from, input.to, input.reason],
      );
      const voidId = rows[0]!.id;
      const column = input.listenerId !== null ? 'listener_id' : 'client_hash';
      const key = input.listenerId ?? input.clientHash;
      const counts = await client.query<{ matched: number; counted: number }>(VOID_SQL(column), [voidId, key, input.from, input.to]);
      const { matched, counted } = counts.rows[0]!;
      await client.query(`UPDATE play_voids SET voided = $2, uncounted = $3 WHERE id = $1`, [voidId, matched, counted]);
      await client.query('COMMIT');
      client.release();
      return { voidId, voided: matched, uncounted: counted };
    } catch (err) {
      // A failed ROLLBACK leaves the connection unusable: it is destroyed (release(true)), and the
      // statement's own error is the one the caller needs.
      const broken = await client.query('ROLLBACK').then(
        () => false,
        () => true,
      );
      client.release(broken);
      throw err;
    }
  }

  /** Drops hourly rollups older than 48 hours. */
  async pruneHours(): Promise<void> {
    await this.pool.query(`DELETE FROM track_play_hours WHERE hour < now() - interval '49 hours'`);
  }
}

/** R14 in the ban consumer's transaction: hold (ban) or release (unban) a listener's plays. */
export async function holdPlays(tx: SqlExecutor, userId: number, banned: boolean): Promise<void> {
  await tx.$queryRawUnsafe(banned ? HOLD_SQL : RELEASE_SQL, userId);
}

/** Partitions a week ahead (at start, then hourly) and the 48-hour prune of hourly rollups (every 10 minutes). */
export function startPlayLogMaintenance(playLog: PlayLogRepository, logger: { warn(obj: object, msg: string): void }): { stop(): Promise<void> } {
  const run = (what: string, job: () => Promise<void>) =>
    job().catch((err: unknown) => logger.warn({ err: (err as Error).message }, `play log ${what} failed; will retry`));
  const ahead = () => run('partitions', () => playLog.ensurePartitions(new Date(), 8));
  void ahead();
  const timers = [setInterval(ahead, 3_600_000), setInterval(() => void run('prune', () => playLog.pruneHours()), 600_000)];
  for (const timer of timers) timer.unref();
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}

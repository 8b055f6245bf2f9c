import { raw, sql, type Sql } from '@msp/db';
import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { TRENDING_DAYS, TRENDING_WEIGHTS, type StatColumn } from './trending-rules.js';

const SCORE_SQL = sql`plays * ${TRENDING_WEIGHTS.plays}::int + likes * ${TRENDING_WEIGHTS.likes}::int + reposts * ${TRENDING_WEIGHTS.reposts}::int + comments * ${TRENDING_WEIGHTS.comments}::int`;
const WINDOW_START = sql`((now() AT TIME ZONE 'utc')::date - ${TRENDING_DAYS - 1}::int)`;

/**
 * Adds `delta` counted actions of one kind to a track's day (the day of the action, UTC) and,
 * when that day is inside the window, to the track's stored trending score, in the caller's
 * transaction. Counts never go below zero.
 */
export async function bumpStat(tx: SqlExecutor, trackId: number, at: Date, column: StatColumn, delta: number): Promise<void> {
  const day = at.toISOString().slice(0, 10);
  const col = raw(column);
  await tx.$executeRaw(
    sql`INSERT INTO track_daily_stats (track_id, day, ${col}) VALUES (${trackId}, ${day}::date, GREATEST(${delta}::int, 0))
     ON CONFLICT (track_id, day) DO UPDATE SET ${col} = GREATEST(track_daily_stats.${col} + ${delta}::int, 0)`,
  );
  await tx.$executeRaw(
    sql`UPDATE tracks SET trending_score = GREATEST(trending_score + ${delta * TRENDING_WEIGHTS[column]}, 0) WHERE id = ${trackId} AND ${day}::date >= ${WINDOW_START}`,
  );
}

/**
 * How long one statement of the recompute may run: at 1M tracks with a month of plays it rewrites
 * hundreds of thousands of scores, far past the request budget of the pool's statement_timeout.
 */
export const RECOMPUTE_TIMEOUT_MS = 30 * 60_000;

/**
 * Recomputes every stored score from the daily counters of the window: days that slid out of it
 * stop counting. Run at start and whenever the UTC day changes; it reads only the window's rows.
 * Each statement runs in a transaction of its own with its own statement_timeout (RECOMPUTE_TIMEOUT_MS).
 */
export async function recomputeTrending(db: TransactionalClient): Promise<void> {
  const long = (statement: Sql) =>
    db.$transaction(
      async (tx) => {
        // SET LOCAL takes no parameter: set_config(..., true) is the same setting for this transaction only.
        await tx.$executeRaw(sql`SELECT set_config('statement_timeout', ${String(RECOMPUTE_TIMEOUT_MS)}, true)`);
        await tx.$executeRaw(statement);
      },
      { timeout: RECOMPUTE_TIMEOUT_MS + 60_000, maxWait: 60_000 },
    );
  await long(
    sql`WITH s AS (SELECT track_id, GREATEST(sum(${SCORE_SQL}), 0)::int AS score
                  FROM track_daily_stats WHERE day >= ${WINDOW_START} GROUP BY track_id)
     UPDATE tracks t SET trending_score = s.score FROM s WHERE t.id = s.track_id AND t.trending_score <> s.score`,
  );
  await long(
    sql`UPDATE tracks SET trending_score = 0
      WHERE trending_score > 0
        AND NOT EXISTS (SELECT 1 FROM track_daily_stats s WHERE s.track_id = tracks.id AND s.day >= ${WINDOW_START})`,
  );
}

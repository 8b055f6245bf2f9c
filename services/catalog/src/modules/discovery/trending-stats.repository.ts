import type { SqlExecutor, TransactionalClient } from '@msp/events';
import { TRENDING_DAYS, TRENDING_WEIGHTS, type StatColumn } from './trending-rules.js';

const SCORE_SQL = `plays * ${TRENDING_WEIGHTS.plays} + likes * ${TRENDING_WEIGHTS.likes} + reposts * ${TRENDING_WEIGHTS.reposts} + comments * ${TRENDING_WEIGHTS.comments}`;
const WINDOW_START = `((now() AT TIME ZONE 'utc')::date - ${TRENDING_DAYS - 1})`;

/**
 * Adds `delta` counted actions of one kind to a track's day (the day of the action, UTC) and,
 * when that day is inside the window, to the track's stored trending score, in the caller's
 * transaction. Counts never go below zero.
 */
export async function bumpStat(tx: SqlExecutor, trackId: number, at: Date, column: StatColumn, delta: number): Promise<void> {
  const day = at.toISOString().slice(0, 10);
  await tx.$executeRawUnsafe(
    `INSERT INTO track_daily_stats (track_id, day, ${column}) VALUES ($1, $2::date, GREATEST($3, 0))
     ON CONFLICT (track_id, day) DO UPDATE SET ${column} = GREATEST(track_daily_stats.${column} + $3, 0)`,
    trackId,
    day,
    delta,
  );
  await tx.$executeRawUnsafe(
    `UPDATE tracks SET trending_score = GREATEST(trending_score + $2, 0) WHERE id = $1 AND $3::date >= ${WINDOW_START}`,
    trackId,
    delta * TRENDING_WEIGHTS[column],
    day,
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
  const long = (sql: string) =>
    db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${RECOMPUTE_TIMEOUT_MS}`);
        await tx.$executeRawUnsafe(sql);
      },
      { timeout: RECOMPUTE_TIMEOUT_MS + 60_000, maxWait: 60_000 },
    );
  await long(
    `WITH s AS (SELECT track_id, GREATEST(sum(${SCORE_SQL}), 0)::int AS score
                  FROM track_daily_stats WHERE day >= ${WINDOW_START} GROUP BY track_id)
     UPDATE tracks t SET trending_score = s.score FROM s WHERE t.id = s.track_id AND t.trending_score <> s.score`,
  );
  await long(
    `UPDATE tracks SET trending_score = 0
      WHERE trending_score > 0
        AND NOT EXISTS (SELECT 1 FROM track_daily_stats s WHERE s.track_id = tracks.id AND s.day >= ${WINDOW_START})`,
  );
}

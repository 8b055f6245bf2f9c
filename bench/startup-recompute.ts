import type pg from 'pg';

/**
 * Catalog recomputes every trending score at start (startTrendingRefresher): at 1M tracks that
 * rewrites the scores of the window's tracks for seconds (a 1.5-s statement of it was seen during a
 * benchmark's first cases). Waits until none of its statements has run on `database` for 2 s (10
 * minutes at most), so that no measured case pays for it; answers the seconds waited.
 */
export async function waitForStartupRecompute(db: pg.Pool, database: string): Promise<number> {
  const started = Date.now();
  for (let quiet = 0; quiet < 8 && Date.now() - started < 600_000;) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()
          AND (query LIKE '%UPDATE tracks SET trending_score = 0%' OR query LIKE '%WITH s AS (SELECT track_id, GREATEST(sum(%')`,
      [database],
    );
    quiet = rows[0]!.n === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 250));
  }
  return (Date.now() - started) / 1000;
}

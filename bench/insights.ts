/**
 * Artist insights at scale (a benchmark, not a test): docs/insights.md.
 *
 *   npx tsx bench/insights.ts
 *   BENCH_EVENTS=50000000 BENCH_TRACKS=1000000 npx tsx bench/insights.ts      # the full target
 *   BENCH_RESEED=1 BENCH_EVENTS=2000000 npx tsx bench/insights.ts             # seed again
 *
 * Seeds `bench_insights` (once; BENCH_RESEED=1 drops it first) with BENCH_TRACKS tracks (default
 * 100,000) and BENCH_EVENTS play events (default 2,000,000; the target is 50M over 1M tracks)
 * spread over BENCH_DAYS days (365) in the play log's daily partitions, skewed: a track's share
 * falls as the 4th root of its rank (the top 10 tracks get about 10 % of all plays: millions at the
 * full size), and artist 1 owns the 200 most played tracks (about a fifth of all plays: the
 * heaviest dashboard). 70 % of the plays are signed-in (50,000 listeners), 20 % are completions,
 * 3 % are repeats that do not count. The rollups are then built from the log as the service keeps
 * them.
 *
 * Starts catalog (sources through tsx) on a private NATS and object store and calls it directly,
 * as the gateway would (signed X-Gateway-Assertion). Each read case runs BENCH_SECONDS (6) with
 * BENCH_CONCURRENCY (16) requests in flight after a warm-up, and reports requests/s, p50, p95 and
 * p95 as a multiple of a track GET's p95 measured just before it:
 *   - INS-1 of the most played track over 365 days (goal ≤ 5 × the track GET),
 *   - INS-2 of the heaviest artist over 365 days (goal ≤ 10 ×).
 * Then ingest: TRK-17 plays for BENCH_INGEST_SECONDS (10) with BENCH_CONCURRENCY in flight, a
 * different anonymous listener each (so the flood rules do not interfere), skewed tracks: plays/s
 * (goal ≥ 5,000/s) and the rollup lag — zero by construction (the rollups change in the insert's
 * statement); the script checks that the rollups of the ingest window equal the log's counted rows.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createPgPool } from '../packages/db/src/index.ts';
import { deriveAssertionKey, signAssertion } from '../packages/http/src/gateway-assertion.ts';
import { dropRedisKeys, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PG = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const DB_NAME = 'bench_insights';
const DB_URL = `${PG}/${DB_NAME}`;
const TRACKS = Number(process.env.BENCH_TRACKS ?? 100_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 365);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LISTENERS = 50_000;
const ARTISTS = 20_000;
const HEAVY_ARTIST = 1;
const MASTER = 'bench-insights-master-key';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

/** The skewed track pick in SQL: rank = N × random⁴ (P(rank ≤ k) = (k/N)^¼). */
const SKEWED_TRACK = `least(${TRACKS}, 1 + floor(${TRACKS} * power(random(), 4)))::int`;

async function ensureDatabase(): Promise<boolean> {
  const admin = createPgPool(`${PG}/postgres`, 1);
  try {
    if (process.env.BENCH_RESEED === '1') await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [DB_NAME])).rowCount === 1;
    if (!exists) await admin.query(`CREATE DATABASE ${DB_NAME}`);
    return !exists;
  } finally {
    await admin.end();
  }
}

async function start(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, 'src/server.ts'], {
    cwd: path.join(ROOT, 'services/catalog'),
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`catalog exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('catalog did not start');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function seed(db: ReturnType<typeof createPgPool>) {
  const t0 = Date.now();
  const log = (what: string) => console.log(`seed: ${what} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  await db.query(
    `INSERT INTO user_summaries (user_id, username, display_name, role)
     SELECT i, 'artist' || i, 'Artist ' || i, 'ARTIST' FROM generate_series(1, ${ARTISTS}) i
     UNION ALL SELECT 100000 + i, 'listener' || i, 'Listener ' || i, 'LISTENER' FROM generate_series(1, ${LISTENERS}) i
     ON CONFLICT DO NOTHING`,
  );
  await db.query(
    `INSERT INTO tracks (id, artist_id, title, track_slug, genre, genre_key, release_date, state, secret_token, upload_id, duration_seconds, published_at, updated_at)
     SELECT i, CASE WHEN i <= 200 THEN ${HEAVY_ARTIST} ELSE 2 + i % ${ARTISTS - 1} END, 'Track ' || i, 'bench-track-' || i, 'Ambient', 'ambient',
            DATE '2025-01-01', 'FINISHED', 'bench-secret-' || i, gen_random_uuid(), 200, now() - interval '400 days', now()
       FROM generate_series(1, ${TRACKS}) i ON CONFLICT DO NOTHING`,
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('tracks', 'id'), ${TRACKS})`);
  log(`${TRACKS} tracks`);
  const perDay = Math.ceil(EVENTS / DAYS);
  for (let d = DAYS - 1; d >= 0; d--) {
    await db.query(`SELECT msp_play_partition((now() AT TIME ZONE 'UTC')::date - $1::int)`, [d]);
    await db.query(
      `INSERT INTO play_events (played_at, track_id, artist_id, kind, listener_id, client_hash, source, seconds, flag)
       SELECT ts, x.t, CASE WHEN x.t <= 200 THEN ${HEAVY_ARTIST} ELSE 2 + x.t % ${ARTISTS - 1} END,
              CASE WHEN r1 < 0.2 THEN 'C' ELSE 'P' END,
              CASE WHEN r2 < 0.7 THEN 100001 + floor(random() * ${LISTENERS})::int END,
              CASE WHEN r2 >= 0.7 THEN md5(random()::text) END,
              (ARRAY['app','embed','playlist','station','search','feed','profile'])[1 + floor(random() * 7)::int],
              CASE WHEN r1 < 0.2 THEN 200 END,
              CASE WHEN r3 < 0.03 THEN 'repeat' END
         FROM (SELECT ${SKEWED_TRACK} AS t, random() AS r1, random() AS r2, random() AS r3,
                      ((now() AT TIME ZONE 'UTC')::date - $1::int)::timestamp AT TIME ZONE 'UTC' + random() * least(interval '1 day', now() - (((now() AT TIME ZONE 'UTC')::date - $1::int)::timestamp AT TIME ZONE 'UTC')) AS ts
                 FROM generate_series(1, $2::int)) x`,
      [d, perDay],
    );
    if (d % 30 === 0) log(`${DAYS - d} of ${DAYS} days of play events`);
  }
  await db.query(`SELECT msp_play_partition((now() AT TIME ZONE 'UTC')::date + i) FROM generate_series(1, 7) i`);
  // The rollups, as the ingest statement would have left them.
  const counted = `flag IS NULL AND void_id IS NULL AND NOT held`;
  await db.query(
    `INSERT INTO track_play_days (track_id, day, source, plays, completions)
     SELECT track_id, (played_at AT TIME ZONE 'UTC')::date, coalesce(source, ''), count(*) FILTER (WHERE kind = 'P'), count(*) FILTER (WHERE kind = 'C')
       FROM play_events WHERE ${counted} GROUP BY 1, 2, 3`,
  );
  log('track_play_days');
  await db.query(
    `INSERT INTO artist_play_days (artist_id, day, plays, completions)
     SELECT artist_id, (played_at AT TIME ZONE 'UTC')::date, count(*) FILTER (WHERE kind = 'P'), count(*) FILTER (WHERE kind = 'C')
       FROM play_events WHERE ${counted} GROUP BY 1, 2`,
  );
  await db.query(
    `INSERT INTO track_play_hours (track_id, hour, plays, completions)
     SELECT track_id, date_trunc('hour', played_at, 'UTC'), count(*) FILTER (WHERE kind = 'P'), count(*) FILTER (WHERE kind = 'C')
       FROM play_events WHERE ${counted} AND played_at >= now() - interval '48 hours' GROUP BY 1, 2`,
  );
  await db.query(
    `INSERT INTO artist_listener_days (artist_id, day, listener_id, plays)
     SELECT artist_id, (played_at AT TIME ZONE 'UTC')::date, listener_id, count(*)
       FROM play_events WHERE ${counted} AND kind = 'P' AND listener_id IS NOT NULL GROUP BY 1, 2, 3`,
  );
  log('artist_listener_days');
  await db.query(
    `INSERT INTO track_daily_stats (track_id, day, plays, likes, reposts, comments)
     SELECT track_id, day, sum(plays), sum(plays) / 20, sum(plays) / 50, sum(plays) / 40 FROM track_play_days GROUP BY 1, 2
     ON CONFLICT (track_id, day) DO NOTHING`,
  );
  await db.query(
    `UPDATE tracks t SET play_count = s.p, completed_play_count = s.c
       FROM (SELECT track_id, sum(plays)::int AS p, sum(completions)::int AS c FROM track_play_days GROUP BY 1) s WHERE t.id = s.track_id`,
  );
  await db.query(
    `INSERT INTO follow_days (user_id, day, gained, lost)
     SELECT ${HEAVY_ARTIST}, (now() AT TIME ZONE 'UTC')::date - i, 50 + i % 17, i % 5 FROM generate_series(0, ${DAYS - 1}) i ON CONFLICT DO NOTHING`,
  );
  await db.query('VACUUM ANALYZE');
  log('rollups, counters and ANALYZE');
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const fresh = await ensureDatabase();
  const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  const port = await freePort();
  const redisKeyPrefix = `bench-ins-${randomUUID().slice(0, 8)}:`;
  const key = deriveAssertionKey(MASTER, 'catalog');
  const catalog = await start(
    {
      NODE_ENV: 'test',
      RESPONSE_VALIDATION: '0',
      LOG_LEVEL: 'warn',
      DATABASE_URL: DB_URL,
      NATS_URL: nats.url,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      GATEWAY_ASSERTION_KEY: key,
    },
    port,
  );
  const db = createPgPool(DB_URL, 2);
  try {
    const seeded = Number((await db.query(`SELECT count(*)::int AS n FROM tracks`)).rows[0].n);
    if (fresh || seeded === 0) await seed(db);
    const [{ events, heavyTrackPlays, heavyArtistPlays }] = (
      await db.query(
        `SELECT (SELECT count(*) FROM play_events)::bigint AS events,
                (SELECT play_count FROM tracks WHERE id = 1) AS "heavyTrackPlays",
                (SELECT sum(play_count) FROM tracks WHERE artist_id = ${HEAVY_ARTIST})::bigint AS "heavyArtistPlays"`,
      )
    ).rows as [{ events: string; heavyTrackPlays: number; heavyArtistPlays: string }];
    console.log(
      `data: ${events} play events, ${TRACKS} tracks, ${DAYS} days; track 1: ${heavyTrackPlays} counted plays; artist 1: ${heavyArtistPlays} (200 tracks)`,
    );

    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const request = (method: string, url: string, userId: number | null, body?: string, extra: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const headers: Record<string, string> = { 'user-agent': BROWSER, ...extra };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (userId !== null) {
          Object.assign(headers, {
            'x-user-id': String(userId),
            'x-user-role': 'ARTIST',
            'x-user-tier': 'FREE',
            'x-session-id': 'bench',
            'x-username': `artist${userId}`,
          });
        }
        const requestId = randomUUID();
        headers['x-request-id'] = requestId;
        headers['x-client-ip'] = '127.0.0.1';
        headers['x-gateway-assertion'] = signAssertion(key, { method, url, requestId, headers });
        const req = http.request({ host: '127.0.0.1', port, method, path: url, headers, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });

    /** Runs `next()` with CONCURRENCY in flight for `seconds`; latencies (ms), non-2xx count, elapsed. */
    const run = async (seconds: number, next: () => Promise<number>) => {
      const latencies: number[] = [];
      let failed = 0;
      const until = Date.now() + seconds * 1000;
      const began = Date.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (Date.now() < until) {
            const t = performance.now();
            const status = await next();
            latencies.push(performance.now() - t);
            if (status >= 300) failed++;
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      return { latencies, failed, elapsed: (Date.now() - began) / 1000 };
    };
    const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
    const year = `from=${day(DAYS - 1)}&to=${day(0)}`;
    const read = async (name: string, url: string, userId: number | null) => {
      await run(1, () => request('GET', url, userId));
      const r = await run(SECONDS, () => request('GET', url, userId));
      return { name, rps: r.latencies.length / r.elapsed, p50: percentile(r.latencies, 50), p95: percentile(r.latencies, 95), failed: r.failed };
    };
    const rows: string[] = [];
    const report = (c: Awaited<ReturnType<typeof read>>, base?: Awaited<ReturnType<typeof read>>, goal?: number) =>
      rows.push(
        `| ${c.name} | ${c.rps.toFixed(0)} | ${c.p50.toFixed(1)} | ${c.p95.toFixed(1)} | ${base ? `${(c.p95 / base.p95).toFixed(1)} ×` : '1 ×'}${goal ? ` (goal ≤ ${goal} ×)` : ''} | ${c.failed} |`,
      );
    const trackGet = '/api/tracks/1';
    const base1 = await read('track GET by id', trackGet, null);
    report(base1);
    report(await read('INS-1 most played track, 365 days', `/api/insights/tracks/1?${year}`, HEAVY_ARTIST), base1, 5);
    const base2 = await read('track GET by id', trackGet, null);
    report(base2);
    report(await read('INS-2 heaviest artist, 365 days', `/api/insights/me?${year}`, HEAVY_ARTIST), base2, 10);
    report(await read('INS-1 most played track, hourly 48 h', `/api/insights/tracks/1?granularity=hour`, HEAVY_ARTIST), base2);

    // Ingest: TRK-17 plays of skewed tracks by a different anonymous listener each.
    const before = new Date();
    let n = 0;
    const pick = () => Math.min(TRACKS, 1 + Math.floor(TRACKS * Math.random() ** 4));
    const ingest = await run(INGEST_SECONDS, () =>
      request('POST', `/api/tracks/${pick()}/play`, null, '{"source":"app"}', { 'user-agent': `${BROWSER} listener/${++n}` }),
    );
    const ingestRate = ingest.latencies.length / ingest.elapsed;
    const check = (
      await db.query(
        `SELECT (SELECT count(*) FROM play_events WHERE played_at >= $1 AND kind = 'P' AND flag IS NULL AND NOT held AND void_id IS NULL)::int AS logged,
                (SELECT coalesce(sum(plays), 0) FROM track_play_hours WHERE hour >= date_trunc('hour', $1::timestamptz, 'UTC'))::int
              - (SELECT count(*) FROM play_events WHERE played_at >= date_trunc('hour', $1::timestamptz, 'UTC') AND played_at < $1 AND kind = 'P'
                   AND flag IS NULL AND NOT held AND void_id IS NULL)::int AS rolled`,
        [before],
      )
    ).rows[0] as { logged: number; rolled: number };
    console.log('\n| Case | req/s | p50 ms | p95 ms | p95 ÷ track GET | non-2xx |\n| --- | --- | --- | --- | --- | --- |');
    for (const row of rows) console.log(row);
    console.log(
      `\ningest: ${ingest.latencies.length} TRK-17 plays in ${ingest.elapsed.toFixed(1)} s = ${ingestRate.toFixed(0)} plays/s (goal ≥ 5,000/s), ` +
        `p50 ${percentile(ingest.latencies, 50).toFixed(1)} ms, p95 ${percentile(ingest.latencies, 95).toFixed(1)} ms, non-2xx ${ingest.failed}; ` +
        `rollup lag 0 s by construction: the window's counted plays in the log ${check.logged}, in the hourly rollup ${check.rolled}` +
        `${check.logged === check.rolled ? ' (equal)' : ' (DIFFERENT)'}`,
    );
    agent.destroy();
  } finally {
    catalog.kill('SIGTERM');
    await new Promise((r) => catalog.once('exit', r));
    await db.end();
    await Promise.allSettled([nats.close(), s3.close(), dropRedisKeys(redisKeyPrefix)]);
  }
}

await main();

/**
 * Catalog's hot reads at scale (a benchmark, not a test), on the data of `bench/seed.ts`.
 *
 *   npx tsx bench/seed.ts && npx tsx bench/catalog-reads.ts
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=4 npx tsx bench/catalog-reads.ts
 *   BENCH_ROOT=/path/to/other/checkout npx tsx bench/catalog-reads.ts   # the same cases on other code
 *
 * Starts catalog (bench_catalog) and social (bench_social) as separate processes from BENCH_ROOT
 * (default: this checkout), compiled as the image runs them (`node dist/server.js`, built first;
 * BENCH_TSX=1 runs the sources through tsx) on a private NATS and object store, then sends requests straight to
 * catalog, as the gateway would (signed X-Gateway-Assertion for the "token" cases: the user who
 * follows 1,000 artists, the seed's last id). Each case runs BENCH_SECONDS (default 8) with
 * BENCH_CONCURRENCY (default 4) requests in flight, after a warm-up. Reports per case: requests/s,
 * p50/p95 latency, catalog CPU per request (user + system time of the catalog process from
 * /proc, divided by the requests: the least noisy figure on a shared machine), calls catalog made
 * to social per request (its `internal_calls_total`), the answer's size, and the ratios of p95 and CPU to a track GET
 * measured in the same run; catalog's and social's largest RSS at the end.
 *
 * The history case gives the bench user 5,000 listening-history entries first (idempotent).
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of catalog there (`--cpu-prof`, on exit); BENCH_ONLY
 * (a substring) runs only the matching cases plus the baselines (BENCH_PROFILE_ONLY=1: without them, for a profile of one case).
 * BENCH_ANSWERS=<dir> writes each case's first answer there. BENCH_NODE_FLAGS: more node flags for both services (after the Dockerfile's NODE_OPTIONS, which the
 * compiled start applies as the image does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import http from 'node:http';
import { createPgPool } from '../packages/db/src/index.ts';
import { deriveAssertionKey, signAssertion } from '../packages/http/src/gateway-assertion.ts';
import { freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';
import { compiledStart, removeDeployed } from './compiled-start.ts';
import { cpuMs, postgresCpu, postgresCpuMs, statusMb } from './proc-stats.ts';

const here = fileURLToPath(new URL('..', import.meta.url));
const ROOT = path.resolve(process.env.BENCH_ROOT ?? here);
const PG = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const CATALOG_DB = process.env.CATALOG_DATABASE_URL ?? `${PG}/bench_catalog`;
const SOCIAL_DB = process.env.SOCIAL_DATABASE_URL ?? `${PG}/bench_social`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const HISTORY = 5000;
const COMPILED = process.env.BENCH_TSX !== '1';
const MASTER = 'bench-catalog-reads-master-key';

async function start(service: 'catalog' | 'social', env: Record<string, string>, port: number): Promise<ChildProcess> {
  const source = path.join(ROOT, 'services', service);
  // As production starts it (the image's CMD): the compiled bundle deployed with its production
  // dependencies (`pnpm build`, then the Dockerfile's `pnpm deploy`), run by node itself, so the pid
  // is the server's and its CPU and memory are measured. BENCH_TSX=1: the sources through tsx's loader.
  const compiled = COMPILED ? compiledStart(ROOT, `services/${service}`, 'reads') : null;
  const cwd = compiled?.cwd ?? source;
  const entry = compiled?.entry ?? ['--import', pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, 'src/server.ts'];
  const nodeFlags = [...(compiled?.nodeOptions ?? []), env.NODE_PROFILE, process.env.BENCH_NODE_FLAGS].filter(Boolean).join(' ');
  const child = spawn(process.execPath, [...(nodeFlags ? nodeFlags.split(' ') : []), ...entry], {
    cwd,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${service} did not start`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Case {
  name: string;
  url: string;
  token: boolean;
  /** The baseline this case is compared with (a track GET with the same kind of caller). */
  base?: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A keep-alive GET to catalog: status and body. */
function makeGet(port: number, concurrency: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const get = (url: string, headers: Record<string, string> = {}) =>
    new Promise<{ statusCode: number; body: string }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: url, headers, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  return Object.assign(get, { close: () => agent.destroy() });
}
type Get = ReturnType<typeof makeGet>;

async function internalCalls(get: Get): Promise<number> {
  const text = (await get('/metrics')).body;
  let n = 0;
  for (const line of text.split('\n')) if (line.startsWith('internal_calls_total{') && line.includes('target="social"')) n += Number(line.split(' ').pop());
  return n;
}

async function main() {
  const db = createPgPool(CATALOG_DB, 2);
  const listener = Number((await db.query<{ id: number }>('SELECT max(user_id)::int AS id FROM user_summaries')).rows[0]!.id);
  const [{ id: trackId }] = (
    await db.query<{ id: number }>(
      `SELECT t.id FROM tracks t JOIN user_summaries u ON u.user_id = t.artist_id
      WHERE t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED' AND NOT u.is_banned AND NOT u.is_deleted
      ORDER BY t.id LIMIT 1 OFFSET 1000`,
    )
  ).rows as [{ id: number }];
  // The seed's busiest artists hold about 400 tracks; page 100 needs a big one: artist 1 (followed by
  // everybody) gets every 200th track (5,000), idempotently, and the R9 counts follow.
  const moved = await db.query(`UPDATE tracks SET artist_id = 1 WHERE id % 200 = 3 AND artist_id <> 1`);
  if ((moved.rowCount ?? 0) > 0) {
    await db.query(`UPDATE user_summaries u SET track_count = coalesce(s.n, 0)
      FROM user_summaries x LEFT JOIN (SELECT artist_id, count(*)::int AS n FROM tracks
                                         WHERE deleted_at IS NULL AND NOT is_private AND state = 'FINISHED' GROUP BY 1) s ON s.artist_id = x.user_id
      WHERE u.user_id = x.user_id AND u.track_count <> coalesce(s.n, 0)`);
    await db.query('VACUUM ANALYZE tracks');
  }
  const [big] = (
    await db.query<{ artistId: number; n: number }>(
      `SELECT artist_id AS "artistId", count(*)::int AS n FROM tracks WHERE deleted_at IS NULL AND NOT is_private AND state = 'FINISHED'
      GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    )
  ).rows as [{ artistId: number; n: number }];
  const [genre] = (await db.query<{ genre: string; n: number }>(`SELECT genre, count(*)::int AS n FROM tracks GROUP BY 1 ORDER BY 2 DESC LIMIT 1`)).rows as [
    { genre: string; n: number },
  ];
  // 5,000 history entries for the bench user (idempotent), spread over the last 30 days.
  await db.query(
    `INSERT INTO listening_history (user_id, track_id, last_played_at)
     SELECT $1, t.id, now() - (t.id % 43200) * interval '1 minute'
       FROM tracks t WHERE t.id % 200 = 7 ORDER BY t.id LIMIT $2
     ON CONFLICT DO NOTHING`,
    [listener, HISTORY],
  );
  const historyCount = Number((await db.query('SELECT count(*)::int AS n FROM listening_history WHERE user_id = $1', [listener])).rows[0].n);
  const artistPage = 100;
  console.log(
    `root ${ROOT}\nlistener ${listener} (history ${historyCount}), track ${trackId}, big artist ${big.artistId} (${big.n} public tracks; page ${artistPage} of 20), genre "${genre.genre}" (${genre.n} tracks)`,
  );

  const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  const ports = { catalog: await freePort(), social: await freePort() };
  const common: Record<string, string> = {
    NODE_ENV: 'test',
    // As in production: answers through the compiled serialisers only (tests also check them against zod).
    RESPONSE_VALIDATION: '0',
    LOG_LEVEL: 'warn',
    NATS_URL: nats.url,
    REDIS_URL: testInfra().redisUrl,
    REDIS_KEY_PREFIX: `bench-${randomUUID().slice(0, 8)}:`,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    CATALOG_URL: `http://127.0.0.1:${ports.catalog}`,
    SOCIAL_URL: `http://127.0.0.1:${ports.social}`,
  };
  const social = await start('social', { ...common, DATABASE_URL: SOCIAL_DB, GATEWAY_ASSERTION_KEY: deriveAssertionKey(MASTER, 'social') }, ports.social);
  const profile = process.env.BENCH_CPU_PROF ? { NODE_PROFILE: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` } : {};
  const catalog = await start(
    'catalog',
    { ...common, ...profile, DATABASE_URL: CATALOG_DB, GATEWAY_ASSERTION_KEY: deriveAssertionKey(MASTER, 'catalog') },
    ports.catalog,
  );
  const key = deriveAssertionKey(MASTER, 'catalog');
  const get = makeGet(ports.catalog, CONCURRENCY);
  const catalogStartRss = statusMb(catalog.pid!, 'VmRSS');

  const headersFor = (url: string, token: boolean): Record<string, string> => {
    if (!token) return {};
    const headers: Record<string, string> = {
      'x-user-id': String(listener),
      'x-user-role': 'LISTENER',
      'x-user-tier': 'FREE',
      'x-session-id': 'bench-session',
      'x-username': `bench-${listener}`,
      'x-client-ip': '127.0.0.1',
    };
    const requestId = randomUUID();
    headers['x-request-id'] = requestId;
    headers['x-gateway-assertion'] = signAssertion(key, { method: 'GET', url, requestId, headers });
    return headers;
  };

  const cases: Case[] = [
    { name: 'track GET by id', url: `/api/tracks/${trackId}`, token: false },
    { name: 'track GET by id (token)', url: `/api/tracks/${trackId}`, token: true },
    { name: 'page of 50 tracks with flags (token)', url: `/api/users/${big.artistId}/tracks?size=50`, token: true, base: 'track GET by id (token)' },
    {
      name: `station genre ${genre.genre}, page 0`,
      url: `/api/stations/genre?genre=${encodeURIComponent(genre.genre)}&page=0`,
      token: false,
      base: 'track GET by id',
    },
    {
      name: `station genre ${genre.genre}, page 500`,
      url: `/api/stations/genre?genre=${encodeURIComponent(genre.genre)}&page=500`,
      token: false,
      base: 'track GET by id',
    },
    { name: `history of ${historyCount} (token)`, url: '/api/users/me/history', token: true, base: 'track GET by id (token)' },
    { name: `big artist page ${artistPage}`, url: `/api/users/${big.artistId}/tracks?page=${artistPage}`, token: false, base: 'track GET by id' },
  ];

  const only = process.env.BENCH_ONLY;
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => (!c.base && !process.env.BENCH_PROFILE_ONLY) || c.name.includes(only)));
  const results = new Map<string, { rps: number; p50: number; p95: number; cpu: number; pg: number; calls: number; bytes: number }>();
  for (const c of cases) {
    // Signed headers are valid for a minute: sign once per case (a case lasts seconds).
    const headers = headersFor(c.url, c.token);
    const check = await get(c.url, headers);
    if (check.statusCode !== 200) throw new Error(`${c.name}: ${check.statusCode} ${check.body.slice(0, 300)}`);
    if (process.env.BENCH_ANSWERS) writeFileSync(path.join(process.env.BENCH_ANSWERS, `${c.name.replace(/[^a-z0-9]+/gi, '-')}.json`), check.body);
    const warmUntil = Date.now() + 1500;
    const run = async (until: number, lat: number[] | null) => {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (Date.now() < until) {
            const t0 = performance.now();
            const res = await get(c.url, headers);
            if (res.statusCode !== 200) throw new Error(`${c.name}: ${res.statusCode}`);
            lat?.push(performance.now() - t0);
          }
        }),
      );
    };
    await run(warmUntil, null);
    const lat: number[] = [];
    const calls0 = await internalCalls(get);
    const cpu0 = cpuMs(catalog.pid!);
    const pg0 = postgresCpu();
    const t0 = performance.now();
    await run(Date.now() + SECONDS * 1000, lat);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu1 = cpuMs(catalog.pid!);
    const pg1 = postgresCpu();
    const calls1 = await internalCalls(get);
    lat.sort((a, b) => a - b);
    results.set(c.name, {
      rps: lat.length / elapsed,
      p50: percentile(lat, 50),
      p95: percentile(lat, 95),
      cpu: (cpu1 - cpu0) / lat.length,
      pg: postgresCpuMs(pg0, pg1) / lat.length,
      calls: (calls1 - calls0) / lat.length,
      bytes: Buffer.byteLength(check.body),
    });
  }

  const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  console.log(
    `\n${SECONDS} s per case, ${CONCURRENCY} in flight, ${new Date().toISOString()}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log('| case | req/s | p50 ms | p95 ms | catalog CPU ms/req | PostgreSQL CPU ms/req | social calls/req | answer KB | p95 ÷ base | CPU ÷ base |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const c of cases) {
    const r = results.get(c.name)!;
    const b = results.get(c.base ?? c.name) ?? r;
    console.log(
      `| ${c.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.cpu, 2)} | ${fmt(r.pg, 2)} | ${fmt(r.calls, 2)} | ${fmt(r.bytes / 1024)} | ${c.base ? fmt(r.p95 / b.p95) : '1'} | ${c.base ? fmt(r.cpu / b.cpu) : '1'} |`,
    );
  }
  const heap = (await get('/metrics')).body.match(/^nodejs_heap_size_used_bytes (\S+)/m)?.[1];
  console.log(
    `\nRSS at the end: catalog ${statusMb(catalog.pid!, 'VmRSS')} MB (highest ${statusMb(catalog.pid!, 'VmHWM')} MB, at start ${catalogStartRss} MB, V8 heap in use ${heap ? Math.round(Number(heap) / 2 ** 20) : '?'} MB), social ${statusMb(social.pid!, 'VmRSS')} MB (highest ${statusMb(social.pid!, 'VmHWM')} MB)`,
  );

  get.close();
  catalog.kill('SIGTERM');
  social.kill('SIGTERM');
  await Promise.all([catalog, social].map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  await Promise.all([nats.close(), s3.close()]);
  await db.end();
  removeDeployed();
}

await main();
process.exit(0);

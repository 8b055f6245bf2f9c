/**
 * Catalog's hot reads and discovery at scale (a benchmark, not a test), on the data of `bench/seed.ts`.
 *
 *   npx tsx bench/seed.ts && npx tsx bench/catalog-reads.ts
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=4 BENCH_ROUNDS=1 npx tsx bench/catalog-reads.ts
 *   BENCH_ROOT=/path/to/other/checkout npx tsx bench/catalog-reads.ts   # the same cases on other code
 *
 * Starts catalog (bench_catalog) and social (bench_social) as separate processes from BENCH_ROOT
 * (default: this checkout), compiled as the image runs them (`node dist/server.js`, built first;
 * BENCH_TSX=1 runs the sources through tsx) on a private NATS and object store, then sends requests straight to
 * catalog, as the gateway would (signed X-Gateway-Assertion for the "token" cases: the user who
 * follows 1,000 artists, the seed's last id). Each case runs BENCH_SECONDS (default 6) with
 * BENCH_CONCURRENCY (default 16, more than catalog's 10 pool connections) requests in flight, after a
 * warm-up; the whole list runs BENCH_ROUNDS times (default 3), each round against the track GETs of
 * the same round, and the table shows each case's worst round. The discovery cases hit the hard
 * spots: rare words of the seed's long tail (fewer than 20 matches, a different one per request),
 * typos of common and of rare words, the most common word, one-letter prefixes, each as TRACK, USER,
 * PLAYLIST and ALL; the likes station (the listener has 500 likes) warm and cold (a different
 * listener per request), the artist station of a different artist per request (never cached), any
 * page of a 5,000-entry history warm and with its outline dropped before each request, trending with
 * and without genre. No request may answer 5xx: they are counted, not thrown. Reports per case: requests/s,
 * p50/p95 latency, catalog CPU per request (user + system time of the catalog process from
 * /proc, divided by the requests: the least noisy figure on a shared machine), calls catalog made
 * to social per request (its `internal_calls_total`), the answer's size, and the ratios of p95 and CPU to a track GET
 * measured in the same run; catalog's and social's largest RSS at the end.
 *
 * The history case gives the bench user 5,000 listening-history entries first (idempotent).
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of catalog there (`--cpu-prof`, on exit); BENCH_ONLY
 * (a substring, or several separated by |) runs only the matching cases plus the baselines (BENCH_PROFILE_ONLY=1: without them, for a profile of one case).
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
import { ShortPrefixesRepository } from '../services/catalog/src/modules/discovery/short-prefixes.repository.ts';
import { SYLLABLES } from './vocabulary.ts';
import { deriveAssertionKey, signAssertion } from '../packages/http/src/gateway-assertion.ts';
import { dropRedisKeys, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';
import { compiledStart, removeDeployed } from './compiled-start.ts';
import { cpuMs, postgresCpu, postgresCpuMs, statusMb } from './proc-stats.ts';
import { waitForStartupRecompute } from './startup-recompute.ts';

const here = fileURLToPath(new URL('..', import.meta.url));
const ROOT = path.resolve(process.env.BENCH_ROOT ?? here);
const PG = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const CATALOG_DB = process.env.CATALOG_DATABASE_URL ?? `${PG}/bench_catalog`;
const SOCIAL_DB = process.env.SOCIAL_DATABASE_URL ?? `${PG}/bench_social`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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
  /** The path, or a path per request (a different rare word, artist or page each time). */
  url: string | (() => string);
  /** Whether the caller is signed in: the bench listener, or a listener per request. */
  token: boolean | (() => number);
  /** The baseline this case is compared with (a track GET with the same kind of caller). */
  base?: string;
  /** Work before each request, outside its timing (dropping a cache). */
  before?: () => Promise<unknown>;
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
  // 500 likes for the bench user (the likes station), in catalog's copy (idempotent).
  await db.query(
    `INSERT INTO track_engagements (kind, user_id, track_id, created_at)
     SELECT 'L', $1, t.id, now() FROM tracks t WHERE t.id % 1999 = 11 ORDER BY t.id LIMIT 500 ON CONFLICT DO NOTHING`,
    [listener],
  );
  // As autovacuum would after such inserts: the planner knows the listener has thousands of entries.
  await db.query('ANALYZE listening_history, track_engagements');
  const count1 = async (sql: string, values: unknown[]) => Number((await db.query(sql, values)).rows[0].n);
  const historyCount = await count1('SELECT count(*)::int AS n FROM listening_history WHERE user_id = $1', [listener]);
  const likeCount = await count1(`SELECT count(*)::int AS n FROM track_engagements WHERE kind = 'L' AND user_id = $1`, [listener]);
  // Words of the seed's long tail (bench/seed.ts SYLLABLES) with 3 to 19 listed tracks: the rare words.
  const rare: string[] = [];
  for (let i = 0; rare.length < 24 && i < 400; i++) {
    const pick = () => SYLLABLES[Math.floor(Math.random() * SYLLABLES.length)]!;
    const word = pick() + pick() + pick();
    const n = await count1(
      `SELECT count(*)::int AS n FROM tracks WHERE search_doc @@ to_tsquery('simple', $1) AND deleted_at IS NULL AND NOT is_private AND state = 'FINISHED'`,
      [`'${word}'`],
    );
    if (n >= 3 && n < 20 && !rare.includes(word)) rare.push(word);
  }
  if (rare.length === 0) throw new Error('no rare words: seed with the current bench/seed.ts');
  const rareUsers: string[] = (
    await db.query<{ w: string }>(
      `SELECT lower(split_part(display_name, ' ', 3)) AS w FROM user_summaries WHERE split_part(display_name, ' ', 3) <> '' ORDER BY user_id LIMIT 24`,
    )
  ).rows.map((r) => r.w);
  // A typo: two neighbouring letters swapped in the middle of the word.
  const typo = (w: string) => {
    const i = Math.max(1, Math.floor(w.length / 2) - 1);
    return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  };
  // The most common words of titles (weight A: tags and genres are a short list of their own).
  const [common, second] = (
    await db.query<{ word: string; n: number }>(
      `SELECT word, ndoc AS n FROM ts_stat($$SELECT setweight(to_tsvector('simple', msp_fold(title)), 'A') FROM tracks WHERE id % 100 = 0$$)
        WHERE length(word) > 2 ORDER BY ndoc DESC LIMIT 2`,
    )
  ).rows as [{ word: string; n: number }, { word: string; n: number }];
  const artists = Number((await db.query(`SELECT count(*)::int AS n FROM user_summaries WHERE role = 'ARTIST'`)).rows[0].n);
  const artistPage = 100;
  console.log(
    `root ${ROOT}\nlistener ${listener} (history ${historyCount}, likes ${likeCount}), track ${trackId}, big artist ${big.artistId} (${big.n} public tracks; page ${artistPage} of 20), genre "${genre.genre}" (${genre.n} tracks)\n` +
      `rare words (3-19 tracks each) ${rare.slice(0, 6).join(', ')} …; most common title words "${common.word}" (~${common.n * 100} tracks), "${second.word}" (~${second.n * 100}); ${artists} artists`,
  );

  const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  const ports = { catalog: await freePort(), social: await freePort() };
  const redisKeyPrefix = `bench-${randomUUID().slice(0, 8)}:`;
  const common_: Record<string, string> = {
    NODE_ENV: 'test',
    // As in production: answers through the compiled serialisers only (tests also check them against zod).
    RESPONSE_VALIDATION: '0',
    LOG_LEVEL: 'warn',
    NATS_URL: nats.url,
    REDIS_URL: testInfra().redisUrl,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    CATALOG_URL: `http://127.0.0.1:${ports.catalog}`,
    SOCIAL_URL: `http://127.0.0.1:${ports.social}`,
  };
  const social = await start('social', { ...common_, DATABASE_URL: SOCIAL_DB, GATEWAY_ASSERTION_KEY: deriveAssertionKey(MASTER, 'social') }, ports.social);
  const profile = process.env.BENCH_CPU_PROF ? { NODE_PROFILE: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` } : {};
  const catalog = await start(
    'catalog',
    // The short-prefix candidates are refreshed below, before the cases, not in the middle of them.
    { ...common_, ...profile, DATABASE_URL: CATALOG_DB, GATEWAY_ASSERTION_KEY: deriveAssertionKey(MASTER, 'catalog'), SEARCH_PREFIX_REFRESH_MS: '3600000' },
    ports.catalog,
  );
  {
    // What catalog does every SEARCH_PREFIX_REFRESH_MS (10 min by default) in the background: timed here.
    const shortPrefixes = new ShortPrefixesRepository(db);
    for (const kind of ['TRACK', 'PLAYLIST', 'USER'] as const) {
      const started = Date.now();
      const ran = await shortPrefixes.refresh(kind, 200, 3_600_000);
      console.log(`short-prefix candidates ${kind}: ${ran ? `refreshed in ${Date.now() - started} ms` : 'less than an hour old'}`);
    }
  }
  const waited = await waitForStartupRecompute(db, new URL(CATALOG_DB).pathname.slice(1));
  console.log(`catalog's start-up trending recompute over after ${waited.toFixed(1)} s`);
  const key = deriveAssertionKey(MASTER, 'catalog');
  const get = makeGet(ports.catalog, CONCURRENCY);
  const catalogStartRss = statusMb(catalog.pid!, 'VmRSS');
  const catalogDb = new URL(CATALOG_DB);
  const outlineKey = `catalog:history-outline:${catalogDb.host}${catalogDb.pathname}:${listener}`;

  const headersFor = (url: string, userId: number | null): Record<string, string> => {
    if (userId === null) return {};
    const headers: Record<string, string> = {
      'x-user-id': String(userId),
      'x-user-role': 'LISTENER',
      'x-user-tier': 'FREE',
      'x-session-id': 'bench-session',
      'x-username': `bench-${userId}`,
      'x-client-ip': '127.0.0.1',
    };
    const requestId = randomUUID();
    headers['x-request-id'] = requestId;
    headers['x-gateway-assertion'] = signAssertion(key, { method: 'GET', url, requestId, headers });
    return headers;
  };
  const any = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  const q = (word: string, type: string) => `/api/search?q=${encodeURIComponent(word)}&type=${type}`;
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const historyPages = Math.ceil(historyCount / 20);

  const base = 'track GET by id';
  const baseToken = 'track GET by id (token)';
  const cases: Case[] = [
    { name: base, url: `/api/tracks/${trackId}`, token: false },
    { name: baseToken, url: `/api/tracks/${trackId}`, token: true },
    { name: 'page of 50 tracks with flags (token)', url: `/api/users/${big.artistId}/tracks?size=50`, token: true, base: baseToken },
    { name: `big artist page ${artistPage}`, url: `/api/users/${big.artistId}/tracks?page=${artistPage}`, token: false, base },
    ...(['TRACK', 'ALL'] as const).flatMap((type): Case[] => [
      { name: `search ${type}: a rare word (3-19 matches)`, url: () => q(any(rare), type), token: true, base: baseToken },
      { name: `search ${type}: a typo of a rare word`, url: () => q(typo(any(rare)), type), token: true, base: baseToken },
      { name: `search ${type}: a typo "nigth"`, url: q('nigth', type), token: true, base: baseToken },
      { name: `search ${type}: the most common word "${common.word}"`, url: q(common.word, type), token: true, base: baseToken },
      { name: `search ${type}: a one-letter prefix`, url: () => q(any([...letters]), type), token: true, base: baseToken },
      { name: `search ${type}: two words, a typo in the first`, url: () => q(`${typo(any(rare))} ${common.word}`, type), token: true, base: baseToken },
      {
        name: `search ${type}: a rare word and an open prefix "${common.word.slice(0, 2)}"`,
        url: () => q(`${any(rare)} ${common.word.slice(0, 2)}`, type),
        token: true,
        base: baseToken,
      },
      { name: `search ${type}: two common words "${second.word} ${common.word}"`, url: q(`${second.word} ${common.word}`, type), token: true, base: baseToken },
    ]),
    { name: 'search USER: a rare name', url: () => q(any(rareUsers), 'USER'), token: true, base: baseToken },
    { name: 'search USER: a typo of a rare name', url: () => q(typo(any(rareUsers)), 'USER'), token: true, base: baseToken },
    { name: 'search USER: a one-letter prefix', url: () => q(any([...letters]), 'USER'), token: true, base: baseToken },
    { name: 'search PLAYLIST: a rare word', url: () => q(any(rare), 'PLAYLIST'), token: true, base: baseToken },
    { name: `search PLAYLIST: the most common word "${common.word}"`, url: q(common.word, 'PLAYLIST'), token: true, base: baseToken },
    { name: 'search PLAYLIST: a one-letter prefix', url: () => q(any([...letters]), 'PLAYLIST'), token: true, base: baseToken },
    { name: `station genre ${genre.genre}, page 0`, url: `/api/stations/genre?genre=${encodeURIComponent(genre.genre)}&page=0`, token: false, base },
    { name: `station genre ${genre.genre}, page 500`, url: `/api/stations/genre?genre=${encodeURIComponent(genre.genre)}&page=500`, token: false, base },
    { name: `likes station (${likeCount} likes)`, url: '/api/stations/likes', token: true, base: baseToken },
    {
      name: 'likes station, cold (a listener per request)',
      url: '/api/stations/likes',
      token: () => 1 + Math.floor(Math.random() * (listener - 1)),
      base: baseToken,
    },
    {
      name: 'artist station, cold (an artist per request)',
      url: () => `/api/stations/artist?artistId=${1 + Math.floor(Math.random() * artists)}`,
      token: false,
      base,
    },
    { name: `history of ${historyCount}, page 0 (token)`, url: '/api/users/me/history', token: true, base: baseToken },
    {
      name: `history of ${historyCount}, any page (token)`,
      url: () => `/api/users/me/history?page=${Math.floor(Math.random() * historyPages)}`,
      token: true,
      base: baseToken,
    },
    {
      name: `history of ${historyCount}, any page, outline dropped (token)`,
      url: () => `/api/users/me/history?page=${Math.floor(Math.random() * historyPages)}`,
      token: true,
      base: baseToken,
      before: () => dropRedisKeys(`${redisKeyPrefix}${outlineKey}`),
    },
    { name: 'trending', url: '/api/explore/trending', token: true, base: baseToken },
    { name: `trending ${genre.genre}`, url: `/api/explore/trending?genre=${encodeURIComponent(genre.genre)}`, token: true, base: baseToken },
  ];

  const only = process.env.BENCH_ONLY;
  if (only)
    cases.splice(
      0,
      cases.length,
      ...cases.filter((c) => (!c.base && !process.env.BENCH_PROFILE_ONLY) || only.split('|').some((part) => c.name.includes(part))),
    );
  type Result = {
    rps: number;
    p50: number;
    p95: number;
    cpu: number;
    pg: number;
    client: number;
    calls: number;
    bytes: number;
    errors5xx: number;
    other: number;
  };
  const rounds: Array<Map<string, Result>> = [];
  const urlOf = (c: Case) => (typeof c.url === 'string' ? c.url : c.url());
  const userOf = (c: Case) => (c.token === false ? null : c.token === true ? listener : c.token());
  let peakRss = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const results = new Map<string, Result>();
    rounds.push(results);
    for (const c of cases) {
      const firstUrl = urlOf(c);
      const check = await get(firstUrl, headersFor(firstUrl, userOf(c)));
      if (check.statusCode !== 200 && round === 0) console.warn(`${c.name}: ${check.statusCode} ${check.body.slice(0, 300)}`);
      if (process.env.BENCH_ANSWERS && round === 0) {
        writeFileSync(path.join(process.env.BENCH_ANSWERS, `${c.name.replace(/[^a-z0-9]+/gi, '-')}.json`), check.body);
      }
      let errors5xx = 0;
      let other = 0;
      const run = async (until: number, lat: number[] | null) => {
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (Date.now() < until) {
              if (c.before) await c.before();
              const url = urlOf(c);
              // Signed headers hold the path: signed per request when the path changes.
              const headers = headersFor(url, userOf(c));
              const t0 = performance.now();
              const res = await get(url, headers);
              if (lat) {
                lat.push(performance.now() - t0);
                if (res.statusCode >= 500) errors5xx++;
                else if (res.statusCode !== 200) other++;
              }
            }
          }),
        );
      };
      await run(Date.now() + 1500, null);
      const lat: number[] = [];
      const calls0 = await internalCalls(get);
      const cpu0 = cpuMs(catalog.pid!);
      const client0 = cpuMs(process.pid);
      const pg0 = postgresCpu();
      const t0 = performance.now();
      await run(Date.now() + SECONDS * 1000, lat);
      const elapsed = (performance.now() - t0) / 1000;
      const cpu1 = cpuMs(catalog.pid!);
      const client1 = cpuMs(process.pid);
      const pg1 = postgresCpu();
      const calls1 = await internalCalls(get);
      peakRss = Math.max(peakRss, statusMb(catalog.pid!, 'VmHWM'));
      lat.sort((a, b) => a - b);
      results.set(c.name, {
        rps: lat.length / elapsed,
        p50: percentile(lat, 50),
        p95: percentile(lat, 95),
        cpu: (cpu1 - cpu0) / lat.length,
        pg: postgresCpuMs(pg0, pg1) / lat.length,
        client: (client1 - client0) / lat.length,
        calls: (calls1 - calls0) / lat.length,
        bytes: Buffer.byteLength(check.body),
        errors5xx,
        other,
      });
    }
  }

  const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  console.log(
    `\n${ROUNDS} round(s), ${SECONDS} s per case, ${CONCURRENCY} in flight, ${new Date().toISOString()}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log('Each case: its worst round by p95 ÷ base (the base is the track GET of the same round, same kind of caller).');
  console.log(
    '| case | req/s | p50 ms | p95 ms | catalog CPU ms/req | PostgreSQL CPU ms/req | load generator CPU ms/req | social calls/req | answer KB | 5xx | other non-200 | p95 ÷ base (worst round) | CPU ÷ base |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  let total5xx = 0;
  for (const c of cases) {
    const ratio = (results: Map<string, Result>) => {
      const r = results.get(c.name)!;
      return r.p95 / (results.get(c.base ?? c.name) ?? r).p95;
    };
    const worst = rounds.reduce((w, results) => (ratio(results) > ratio(w) ? results : w), rounds[0]!);
    const r = worst.get(c.name)!;
    const b = worst.get(c.base ?? c.name) ?? r;
    const all5xx = rounds.reduce((n, results) => n + results.get(c.name)!.errors5xx, 0);
    const allOther = rounds.reduce((n, results) => n + results.get(c.name)!.other, 0);
    total5xx += all5xx;
    console.log(
      `| ${c.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.cpu, 2)} | ${fmt(r.pg, 2)} | ${fmt(r.client, 2)} | ${fmt(r.calls, 2)} | ${fmt(r.bytes / 1024)} | ${all5xx} | ${allOther} | ${c.base ? fmt(r.p95 / b.p95) : '1'} | ${c.base ? fmt(r.cpu / b.cpu) : '1'} |`,
    );
  }
  const heap = (await get('/metrics')).body.match(/^nodejs_heap_size_used_bytes (\S+)/m)?.[1];
  console.log(
    `\n5xx answers in the whole run: ${total5xx}\nRSS: catalog highest ${Math.max(peakRss, statusMb(catalog.pid!, 'VmHWM'))} MB (at the end ${statusMb(catalog.pid!, 'VmRSS')} MB, at start ${catalogStartRss} MB, V8 heap in use ${heap ? Math.round(Number(heap) / 2 ** 20) : '?'} MB), social ${statusMb(social.pid!, 'VmRSS')} MB (highest ${statusMb(social.pid!, 'VmHWM')} MB)`,
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

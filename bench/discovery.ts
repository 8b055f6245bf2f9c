/**
 * Discovery latency at scale (a benchmark, not a test), on the data of `bench/seed.ts`.
 *
 *   npx tsx bench/seed.ts && npx tsx bench/discovery.ts
 *   BENCH_N=100 BENCH_EXPLAIN=0 npx tsx bench/discovery.ts
 *
 * Boots identity (a fresh database, for the signing keys), catalog on bench_catalog, social on
 * bench_social and the gateway, on private NATS and object storage, then measures sequential
 * requests through the gateway (BENCH_N each, default 200; the first 10 warm up) as the user who
 * follows 1,000 artists (the seed's last user id). Reports p50/p95 of each and the ratio of its
 * p95 to the baseline's (a track GET by id) measured in the same run; goals: search ≤ 10×,
 * feed ≤ 5×, trending and stations ≤ 3×. With BENCH_EXPLAIN=1 (default) it also prints the
 * EXPLAIN (ANALYZE, BUFFERS) plan of each discovery query, produced by the repositories' own SQL.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgPool } from '../packages/db/src/index.ts';
import { createTestDatabase, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';
import { buildApp as buildIdentity, loadIdentityConfig } from '../services/identity/src/app.ts';
import { buildApp as buildCatalog, loadCatalogConfig } from '../services/catalog/src/app.ts';
import { buildApp as buildSocial, loadSocialConfig } from '../services/social/src/app.ts';
import { buildGateway, loadGatewayConfig } from '../gateway/src/app.ts';
import { DiscoveryRepository } from '../services/catalog/src/modules/discovery/discovery.repository.ts';
import { searchTerms } from '../services/catalog/src/modules/discovery/search-query.ts';
import { FeedRepository } from '../services/social/src/modules/feed/feed.repository.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const PG = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const CATALOG_URL = process.env.CATALOG_DATABASE_URL ?? `${PG}/bench_catalog`;
const SOCIAL_URL = process.env.SOCIAL_DATABASE_URL ?? `${PG}/bench_social`;
const N = Number(process.env.BENCH_N ?? 200);
const WARMUP = 10;
const EXPLAIN = process.env.BENCH_EXPLAIN !== '0';
const ONLY_EXPLAIN = process.env.BENCH_ONLY_EXPLAIN === '1';

async function boot() {
  const [nats, s3, identityDb] = await Promise.all([
    startNatsServer(),
    startS3rver(),
    createTestDatabase('bench_discovery_identity', path.join(root, 'services/identity/prisma/migrations')),
  ]);
  const ports = { identity: await freePort(), catalog: await freePort(), social: await freePort(), gateway: await freePort() };
  const url = (p: number) => `http://127.0.0.1:${p}`;
  const common = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DB_AUTO_MIGRATE: 'false',
    NATS_URL: nats.url,
    REDIS_URL: testInfra().redisUrl,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    PUBLIC_BASE_URL: url(ports.gateway),
    IDENTITY_URL: url(ports.identity),
    CATALOG_URL: url(ports.catalog),
    SOCIAL_URL: url(ports.social),
    REDIS_KEY_PREFIX: `bench-${randomUUID().slice(0, 8)}:`,
  };
  const identity = await buildIdentity(loadIdentityConfig({ ...common, DATABASE_URL: identityDb.url }), { logger: false });
  const catalog = await buildCatalog(loadCatalogConfig({ ...common, DATABASE_URL: CATALOG_URL }), { logger: false });
  const social = await buildSocial(loadSocialConfig({ ...common, DATABASE_URL: SOCIAL_URL }), { logger: false });
  await identity.listen({ port: ports.identity, host: '127.0.0.1' });
  await catalog.listen({ port: ports.catalog, host: '127.0.0.1' });
  await social.listen({ port: ports.social, host: '127.0.0.1' });
  const gateway = await buildGateway(
    loadGatewayConfig({
      ...common,
      JWKS_URL: `${url(ports.identity)}/.well-known/jwks.json`,
      RATE_LIMIT_CLIENT_PER_MINUTE: '10000000',
      RATE_LIMIT_USER_PER_MINUTE: '10000000',
    }),
    { logger: false },
  );
  await gateway.listen({ port: ports.gateway, host: '127.0.0.1' });
  return {
    gatewayUrl: url(ports.gateway),
    sign: (userId: number) =>
      identity.keys.sign(
        { sub: String(userId), username: `bench-${userId}`, role: 'LISTENER', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
        1800,
        'msp-identity',
      ),
    async close() {
      await gateway.close();
      await Promise.allSettled([social.close(), catalog.close(), identity.close()]);
      await Promise.allSettled([nats.close(), s3.close(), identityDb.drop()]);
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(gatewayUrl: string, token: string, paths: () => string) {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < N + WARMUP; i++) {
    const started = performance.now();
    const res = await fetch(`${gatewayUrl}${paths()}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) errors++;
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), errors };
}

/** A stand-in for Prisma that prints each query's plan instead of its rows (the repositories' SQL, unchanged). */
function explainingClient(pool: ReturnType<typeof createPgPool>, label: string) {
  const run = async (sql: string, ...params: unknown[]) => {
    // The feed picks its plan shape from the caller's following count: answer that one for real.
    if (/^SELECT count\(\*\)::int AS n FROM follows/.test(sql)) return (await pool.query(sql, params)).rows;
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params);
    console.log(`\n--- EXPLAIN ${label}: ${sql.replace(/\s+/g, ' ').slice(0, 120)}…\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    return [];
  };
  // The repositories' pg statements ({ text, values } or text and values), explained the same way.
  const query = async (config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    const params = typeof config === 'string' ? (values ?? []) : (config.values ?? []);
    // Typo corrections feed the next statement: answer them for real.
    if (/FROM search_words/.test(text)) return pool.query(text, params);
    return { rows: await run(text, ...params) };
  };
  return {
    query,
    $queryRaw: (q: { text: string; values: unknown[] }) => run(q.text, ...q.values),
    $executeRaw: (q: { text: string; values: unknown[] }) => run(q.text, ...q.values),
    $transaction: (items: Array<Promise<unknown>>) => Promise.all(items),
    track: { findMany: async () => [] },
  };
}

async function explainAll(bigFan: number) {
  // One connection each, so the session-level similarity threshold holds for the search plans.
  const catalogPool = createPgPool(CATALOG_URL, 1);
  const socialPool = createPgPool(SOCIAL_URL, 1);
  try {
    const day = new Date().toISOString().slice(0, 10);
    // The trending page's rows are read by id afterwards (TrackReadsRepository): not explained here.
    const rowsById = { inOrder: async () => [] };
    const catalogRepo = (label: string) => {
      const client = explainingClient(catalogPool, label);
      return new DiscoveryRepository(client as never, rowsById as never, client as never);
    };
    await catalogRepo('search common word').search(searchTerms('love')!, ['TRACK', 'USER', 'PLAYLIST'], bigFan, null, 0, 20);
    await catalogRepo('search misspelled name').search(searchTerms('beyonse')!, ['TRACK', 'USER', 'PLAYLIST'], bigFan, null, 0, 20);
    await catalogRepo('trending').trendingPage(bigFan, null, 0, 20);
    await catalogRepo('trending count').trendingCount(bigFan, null);
    // A station's day is computed once per pool (StationPools keeps it a minute); a page is then its rows by id.
    await catalogRepo('genre station part').genrePicks(day, 'house');
    await catalogRepo('artist station part').artistPicks(day, [5], 500);
    await catalogRepo('likes station artists part').artistPicks(day, [5, 6, 7], 167);
    await catalogRepo('likes station seeds').likeSeeds(bigFan);
    await new FeedRepository(explainingClient(socialPool, 'feed page 10') as never).page(bigFan, new Date(Date.now() - 90 * 86_400_000), 200, 9, 20);
  } finally {
    await Promise.all([catalogPool.end(), socialPool.end()]);
  }
}

async function main() {
  const db = createPgPool(CATALOG_URL, 1);
  const {
    rows: [size],
  } = await db.query<{ users: number; tracks: number; maxTrack: number }>(
    `SELECT (SELECT max(user_id) FROM user_summaries) AS users, (SELECT count(*)::int FROM tracks) AS tracks, (SELECT max(id) FROM tracks) AS "maxTrack"`,
  );
  await db.end();
  if (!size?.users) throw new Error('no data: run `npx tsx bench/seed.ts` first');
  const bigFan = size.users;
  console.log(`data: ${size.users} users, ${size.tracks} tracks; caller ${bigFan} (follows the 1,000 most active artists); ${N} requests each`);
  if (ONLY_EXPLAIN) return explainAll(bigFan);
  const target = await boot();
  try {
    const token = await target.sign(bigFan);
    // Public tracks: the seed makes every 50th private.
    const publicTrack = () => {
      const id = 1 + Math.floor(Math.random() * size.maxTrack);
      return id % 50 === 0 ? id + 1 : id;
    };
    const cases: Array<[string, () => string, number | null]> = [
      ['track GET by id (baseline)', () => `/api/tracks/${publicTrack()}`, null],
      ['search: common word "love"', () => '/api/search?q=love', 10],
      ['search: rare word "hummingbird"', () => '/api/search?q=hummingbird', 10],
      ['search: two words "summer love"', () => '/api/search?q=summer%20love', 10],
      ['search: prefix "midn"', () => '/api/search?q=midn', 10],
      ['search: misspelled name "beyonse"', () => '/api/search?q=beyonse', 10],
      ['feed: first page', () => '/api/feed', 5],
      ['feed: page 10', () => '/api/feed?page=9', 5],
      ['trending: all', () => '/api/explore/trending', 3],
      ['trending: genre House', () => '/api/explore/trending?genre=House', 3],
      ['station: genre House', () => '/api/stations/genre?genre=House', 3],
      ['station: artist 5', () => '/api/stations/artist?artistId=5', 3],
      ['station: likes', () => '/api/stations/likes', 3],
    ];
    const results: Array<Record<string, string | number>> = [];
    let baseline = 0;
    for (const [label, paths, goal] of cases) {
      const r = await measure(target.gatewayUrl, token, paths);
      if (goal === null) baseline = r.p95;
      const ratio = r.p95 / baseline;
      results.push({
        case: label,
        'p50 ms': Number(r.p50.toFixed(1)),
        'p95 ms': Number(r.p95.toFixed(1)),
        'p95 / baseline': Number(ratio.toFixed(2)),
        goal: goal === null ? '-' : `≤ ${goal}×`,
        met: goal === null ? '-' : ratio <= goal ? 'yes' : 'NO',
        errors: r.errors,
      });
    }
    console.table(results);
  } finally {
    await target.close();
  }
  if (EXPLAIN) await explainAll(bigFan);
}

await main();

/**
 * The cost of a signed-in viewer (a benchmark, not a test): total CPU per request of a track read
 * anonymous against the same read with a viewer, through the gateway, side by side in one run.
 *
 *   npx tsx bench/viewer-cost.ts
 *
 * Creates its own small data set (databases `bench_viewer_catalog` and `bench_viewer_social`,
 * dropped and recreated; it never touches `bench_catalog`/`bench_social`): BENCH_USERS (2,000)
 * users of whom BENCH_ARTISTS (200) artists, BENCH_TRACKS (5,000) public FINISHED tracks (the
 * first artist has 200 of them), random likes and reposts, and a viewer who likes every other
 * track of the first artist, reposts every fourth and follows the artist; the same likes, reposts
 * and follows in social's tables (as social holds them; no phase reads them).
 *
 * Starts the gateway (local test JWKS, limits raised), catalog and social from their sources
 * (tsx; private NATS and object store, the local PostgreSQL and Redis; logs at info to /dev/null),
 * then, for BENCH_ROUNDS (3) rounds, alternating the order, BENCH_REQUESTS (3,000) requests with
 * BENCH_CONCURRENCY (8) keep-alive connections through the gateway for each phase:
 *
 *   track anon     TRK-6 `GET /api/tracks/{id}` without a token
 *   track viewer   the same with the viewer's bearer token
 *   page anon      USR-18 `GET /api/users/{artist}/tracks?size=50` without a token
 *   page viewer    the same with the viewer's token
 *
 * CPU per request: user + system time (/proc/<pid>/stat) of the gateway, catalog and social
 * processes, and of the PostgreSQL backends connected to the two bench databases (pids from
 * pg_stat_activity: the other databases of a shared server are left out), less what each spends
 * idle (measured for BENCH_IDLE_SECONDS, 10, before the rounds: timers, outbox relays, consumers)
 * over the phase's duration. The load generator's own CPU is not counted. Medians of the rounds are printed with the viewer/anonymous figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { cpuMs, postgresCpuMs, statCpuMs } from './proc-stats.ts';
import { createPgPool, dropDatabase, ensureDatabase, migrate } from '../packages/db/src/index.ts';
import { createTestJwks, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const USERS = Number(process.env.BENCH_USERS ?? 2000);
const ARTISTS = Number(process.env.BENCH_ARTISTS ?? 200);
const TRACKS = Number(process.env.BENCH_TRACKS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const ARTIST = 1;
const VIEWER = USERS; // a listener (ids above ARTISTS are listeners)
const PG = testInfra().postgresUrl;
const DB = { catalog: `${PG}/bench_viewer_catalog`, social: `${PG}/bench_viewer_social` };

async function prepare(): Promise<{ trackId: number }> {
  for (const [service, url] of Object.entries(DB)) {
    await dropDatabase(url);
    await ensureDatabase(url);
    await migrate(url, `${root}services/${service}/prisma/migrations`);
  }
  const catalog = createPgPool(DB.catalog, 1);
  const social = createPgPool(DB.social, 1);
  // Users: 1..ARTISTS are artists.
  for (const pool of [catalog, social]) {
    await pool.query(
      `INSERT INTO user_summaries (user_id, username, display_name, ${pool === catalog ? 'role, updated_at' : 'updated_at'})
       SELECT i, 'user' || i, 'User ' || i, ${pool === catalog ? `CASE WHEN i <= $2 THEN 'ARTIST' ELSE 'LISTENER' END, now()` : 'now()'}
         FROM generate_series(1, $1::int) i`,
      pool === catalog ? [USERS, ARTISTS] : [USERS],
    );
  }
  // Tracks: the first artist has 200, the others share the rest.
  await catalog.query(
    `INSERT INTO tracks (id, artist_id, title, track_slug, genre, genre_key, tags, release_date, state, secret_token, upload_id,
                         duration_seconds, published_at, created_at, updated_at, progressive_key, hls_playlist_key, waveform_key)
     SELECT i, CASE WHEN i <= 200 THEN $2 ELSE 2 + (i % ($3 - 1)) END, 'Track ' || i, 'track-' || i, 'Techno', 'techno', '{night}',
            '2026-01-01', 'FINISHED', md5('secret' || i), md5('upload' || i)::uuid, 180,
            now() - i * interval '1 minute', now() - i * interval '1 minute', now(),
            'tracks/' || i || '/full.m4a', 'tracks/' || i || '/index.m3u8', 'public/' || md5('w' || i)::uuid || '/waveform.json'
       FROM generate_series(1, $1::int) i`,
    [TRACKS, ARTIST, ARTISTS],
  );
  await catalog.query(`SELECT setval(pg_get_serial_sequence('tracks', 'id'), $1)`, [TRACKS]);
  // The R9 trackCount catalog keeps (a full page then needs no count).
  await catalog.query(
    `UPDATE user_summaries u SET track_count = c.n FROM (SELECT artist_id, count(*)::int AS n FROM tracks GROUP BY artist_id) c WHERE c.artist_id = u.user_id`,
  );
  await social.query(
    `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, access, genre, published_at, created_at)
     SELECT i, CASE WHEN i <= 200 THEN $2 ELSE 2 + (i % ($3 - 1)) END, 'Track ' || i, 'track-' || i, 'FINISHED', false, 'PLAYABLE', 'Techno', now(), now()
       FROM generate_series(1, $1::int) i`,
    [TRACKS, ARTIST, ARTISTS],
  );
  // Engagement: 20 random likes and 2 reposts per listener, and the viewer's on the first artist.
  const likes = `SELECT DISTINCT u, 1 + ((u * 7919 + k * 104729) % $1) AS t FROM generate_series($2::int + 1, $3::int - 1) u, generate_series(1, $4::int) k`;
  const viewer = (every: number) => `SELECT $5::int, i FROM generate_series(1, 200) i WHERE i % ${every} = 0`;
  for (const [kind, table, per, every] of [
    ['L', 'track_likes', 20, 2],
    ['R', 'track_reposts', 2, 4],
  ] as const) {
    const rows = `${likes} UNION ${viewer(every)}`;
    const values = [TRACKS, ARTISTS, USERS, per, VIEWER];
    await catalog.query(`INSERT INTO track_engagements (kind, user_id, track_id, created_at) SELECT '${kind}', u, t, now() FROM (${rows}) x(u, t)`, values);
    await social.query(`INSERT INTO ${table} (user_id, track_id, created_at) SELECT u, t, now() FROM (${rows}) x(u, t)`, values);
  }
  // Follows: every listener follows 10 artists; the viewer follows the first.
  const follows = `SELECT DISTINCT u, 1 + ((u * 31 + k * 17) % $2) FROM generate_series($2::int + 1, $1::int - 1) u, generate_series(1, 10) k UNION SELECT $1::int, ${ARTIST}`;
  await catalog.query(`INSERT INTO user_follows (follower_id, followee_id) SELECT * FROM (${follows}) x`, [USERS, ARTISTS]);
  await social.query(`INSERT INTO follows (follower_id, followee_id) SELECT * FROM (${follows}) x`, [USERS, ARTISTS]);
  for (const pool of [catalog, social]) await pool.query('VACUUM ANALYZE');
  await Promise.all([catalog.end(), social.end()]);
  return { trackId: 2 };
}

function spawnSource(workload: string, env: Record<string, string>): ChildProcess {
  const flags = (/^ENV NODE_OPTIONS=(.+)$/m.exec(readFileSync(`${root}Dockerfile`, 'utf8'))?.[1] ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...flags, '--import', 'tsx', `${workload}/src/server.ts`], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    // Logs at info, as deployed, into BENCH_LOG_DIR/<name>.log (default /dev/null).
    stdio: ['ignore', openSync(process.env.BENCH_LOG_DIR ? `${process.env.BENCH_LOG_DIR}/${workload.split('/').pop()}.log` : '/dev/null', 'w'), 'inherit'],
  });
}

async function waitUp(url: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 in 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** `count` requests over `concurrency` keep-alive connections; throws on any non-2xx answer. */
async function load(origin: string, request: () => { method: string; path: string; headers: Record<string, string>; body?: string }, count: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const r = request();
      const req = http.request(`${origin}${r.path}`, { method: r.method, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`${r.path}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(r.body);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await one();
    }),
  );
  agent.destroy();
}

/** CPU (ms) of each PostgreSQL backend serving the bench databases, by pid. */
async function backendsCpu(monitor: ReturnType<typeof createPgPool>): Promise<Map<string, number>> {
  const { rows } = await monitor.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname IN ('bench_viewer_catalog', 'bench_viewer_social') AND pid <> pg_backend_pid()`,
  );
  const out = new Map<string, number>();
  for (const { pid } of rows) {
    try {
      out.set(String(pid), statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8')));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  console.log(`seeding ${USERS} users, ${TRACKS} tracks ...`);
  const { trackId } = await prepare();
  const jwks = await createTestJwks();
  const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  const [gatewayPort, catalogPort, socialPort] = [await freePort(), await freePort(), await freePort()];
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const common = {
    NATS_URL: nats.url,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    REDIS_KEY_PREFIX: `bench-viewer-${process.pid}:`,
    CATALOG_URL: url(catalogPort),
    SOCIAL_URL: url(socialPort),
  };
  const social = spawnSource('services/social', { ...common, PORT: String(socialPort), DATABASE_URL: DB.social });
  const catalog = spawnSource('services/catalog', { ...common, PORT: String(catalogPort), DATABASE_URL: DB.catalog });
  const services = Object.fromEntries(['IDENTITY', 'MEDIA_PROCESSING', 'MESSAGING', 'NOTIFICATION', 'BILLING'].map((s) => [`${s}_URL`, 'http://127.0.0.1:9']));
  const gateway = spawnSource('gateway', {
    ...services,
    ...common,
    PORT: String(gatewayPort),
    JWKS_URL: jwks.url,
    RATE_LIMIT_CLIENT_PER_MINUTE: '100000000',
    RATE_LIMIT_USER_PER_MINUTE: '100000000',
  });
  const children = { gateway, catalog, social };
  const stop = () => Object.values(children).forEach((c) => c.kill('SIGTERM'));
  process.on('exit', stop);
  const monitor = createPgPool(`${PG}/postgres`, 1);
  try {
    await Promise.all([waitUp(`${url(catalogPort)}/health`), waitUp(`${url(socialPort)}/health`), waitUp(`${url(gatewayPort)}/health`)]);
    const token = await jwks.sign({ sub: String(VIEWER), username: `user${VIEWER}`, role: 'LISTENER', tier: 'FREE', sid: 'bench-viewer' }, { expiresIn: '2h' });
    const bearer = { authorization: `Bearer ${token}` };
    const get =
      (path: string, headers: Record<string, string> = {}) =>
      () => ({ method: 'GET', path, headers });
    const trackPath = `/api/tracks/${trackId}`;
    const pagePath = `/api/users/${ARTIST}/tracks?size=50`;
    const phases: Array<{ name: string; origin: string; request: ReturnType<typeof get> }> = [
      { name: 'track anon', origin: url(gatewayPort), request: get(trackPath) },
      { name: 'track viewer', origin: url(gatewayPort), request: get(trackPath, bearer) },
      { name: 'page anon', origin: url(gatewayPort), request: get(pagePath) },
      { name: 'page viewer', origin: url(gatewayPort), request: get(pagePath, bearer) },
    ];
    // The answers are what they should be (the viewer's flags), then a warm-up of every phase.
    const viewed = (await (await fetch(`${url(gatewayPort)}${pagePath}`, { headers: bearer })).json()) as {
      content: Array<{ id: number; isLiked: boolean; isReposted: boolean; artist: { isFollowing: boolean } }>;
    };
    const wrong = viewed.content.filter((t) => t.isLiked !== (t.id % 2 === 0) || t.isReposted !== (t.id % 4 === 0) || !t.artist.isFollowing);
    if (viewed.content.length !== 50 || wrong.length > 0) throw new Error(`the viewer's page is wrong: ${JSON.stringify(wrong.slice(0, 3))}`);
    for (const phase of phases) await load(phase.origin, phase.request, Math.min(1000, REQUESTS));

    const pids = { gateway: gateway.pid!, catalog: catalog.pid!, social: social.pid! };
    // PostgreSQL: the backends' CPU summed per pid (one that ended meanwhile is not counted, a new one counts whole).
    let backends = await backendsCpu(monitor);
    let postgres = 0;
    const sample = async (): Promise<Record<string, number>> => {
      const now = await backendsCpu(monitor);
      postgres += postgresCpuMs(backends, now);
      backends = now;
      return { ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)])), postgres };
    };
    // What the processes spend with no request (timers, outbox relays, consumers), per second:
    // subtracted from each phase for its duration, so a slow phase on a busy machine is not charged for it.
    const idleStart = await sample();
    const idleFrom = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idleEnd = await sample();
    const idleSeconds = (performance.now() - idleFrom) / 1000;
    const idlePerSecond = Object.fromEntries(Object.keys(idleStart).map((k) => [k, (idleEnd[k]! - idleStart[k]!) / idleSeconds]));
    const results = new Map<string, Array<Record<string, number>>>(phases.map((p) => [p.name, []]));
    console.log(
      `viewer-cost: ${REQUESTS} requests × ${phases.length} phases × ${ROUNDS} rounds, ${CONCURRENCY} connections; idle CPU µs/s subtracted: ${Object.entries(
        idlePerSecond,
      )
        .map(([k, v]) => `${k} ${(v * 1000).toFixed(0)}`)
        .join(', ')}; node ${process.version}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? phases : [...phases].reverse();
      for (const phase of order) {
        const before = await sample();
        const started = performance.now();
        await load(phase.origin, phase.request, REQUESTS);
        const seconds = (performance.now() - started) / 1000;
        const after = await sample();
        const us = Object.fromEntries(Object.keys(before).map((k) => [k, ((after[k]! - before[k]! - idlePerSecond[k]! * seconds) * 1000) / REQUESTS]));
        us.total = us.gateway! + us.catalog! + us.social! + us.postgres!;
        us.rps = REQUESTS / seconds;
        results.get(phase.name)!.push(us);
      }
    }
    const med = (name: string, key: string) => median(results.get(name)!.map((r) => r[key]!));
    for (const { name } of phases) {
      const parts = ['gateway', 'catalog', 'social', 'postgres'].map((k) => `${k} ${med(name, k).toFixed(0)}`).join(', ');
      console.log(`${name.padEnd(13)} total ${med(name, 'total').toFixed(0).padStart(5)} µs/request (${parts}); ${med(name, 'rps').toFixed(0)} req/s`);
    }
    const trackDelta = med('track viewer', 'total') - med('track anon', 'total');
    const pageRatio = med('page viewer', 'total') / med('page anon', 'total');
    console.log(
      `a viewer on one track: +${(trackDelta / 1000).toFixed(3)} ms total CPU (goal ≤ 0.3 ms); a page of 50 with flags: ${pageRatio.toFixed(2)} × the anonymous page (goal ≤ 2)`,
    );
  } finally {
    stop();
    await monitor.end();
    await jwks.close();
    await Promise.all([nats.close(), s3.close()]);
  }
}

await main();
process.exit(0);

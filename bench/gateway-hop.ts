/**
 * The cost of the gateway hop (a benchmark, not a test): the same authenticated route called
 * straight on the service and through the gateway, side by side in one run.
 *
 *   npx tsx bench/gateway-hop.ts
 *
 * Boots, as separate processes with their logs at `info` written to /dev/null: a service built on
 * the fleet's HTTP shell (`createHttpApp`, service name `social`) answering BLK-3
 * `GET /api/users/me/blocked` with a small page (no database: the hop is what is measured), and the
 * real gateway (`gateway/src/server.ts`) in front of it, with a local test JWKS and the local Redis
 * (its own key prefix, limits raised out of the way). Then:
 *
 * 0. Warm-up: BENCH_WARMUP_SECONDS (8) of wrk on each target.
 * 1. Throughput: `wrk` (apt-get install wrk) with BENCH_CONNECTIONS (32) keep-alive connections for
 *    BENCH_SECONDS (10) on each target, BENCH_ROUNDS (3) rounds alternating direct and gateway;
 *    the gateway/direct ratio of each round and their median.
 * 2. Gateway CPU per request: user + system time of the gateway process (/proc/<pid>/stat) over
 *    each gateway phase, divided by the requests of that phase.
 * 3. Added latency at a fixed rate: an open-loop client sends BENCH_RATE (500) requests/s for
 *    BENCH_SECONDS to each target (alternating, BENCH_ROUNDS rounds); p50/p99 of each and the
 *    difference of the p50s.
 *
 * Direct requests carry what the gateway would forward: the X-User-* headers and an
 * X-Gateway-Assertion signed with the development key derived for social (re-signed before each
 * phase: valid 60 s). Through the gateway they carry an RS256 bearer token of the test JWKS.
 * BENCH_PROFILE_DIR=<dir> writes a V8 CPU profile of the gateway there (node --cpu-prof).
 *
 * BENCH_UPSTREAM=social runs the real social service instead of the stand-in (its own database
 * `bench_gwhop_social`, recreated and migrated at boot, the local NATS and Redis): BLK-3 then does
 * what it does in production (the caller's blocked users from PostgreSQL, through the repository),
 * which is the "authenticated route" of the ≥ 0.9× throughput goal; the stand-in measures the hop alone.
 * BENCH_UPSTREAM=catalog runs catalog and social on the seed's databases (`bench/seed.ts` first;
 * private NATS and object store) and measures TRK-6, a track by id with a caller: one statement in
 * catalog plus one call to social for the caller's flags, the platform's most frequent
 * authenticated read.
 *
 * The gateway and the real services run as the image runs them: built and deployed (`pnpm deploy
 * --prod`), `node <the Dockerfile's NODE_OPTIONS> dist/server.js`; BENCH_TSX=1 runs their sources
 * through tsx instead. The stand-in always runs from this file.
 *
 * BENCH_GATEWAY=bare puts the cheapest HTTP hop Node makes in the gateway's place (no checks at
 * all), BENCH_GATEWAY=minimal the same plus only the gateway's unavoidable work per request (its gate
 * script, assertion HMAC and log line, with its own code): what any gateway in Node costs here, and
 * what the gateway's other work costs on top (`runBareProxy`).
 *
 * BENCH_PIN=1 (Linux, taskset): the gateway gets its own core, as a deployment gives it its own pods.
 * CPU 0 takes the service side (the upstream processes and PostgreSQL's postmaster, whose new
 * backends inherit it), the last CPU the gateway side (gateway, Redis, wrk and this process); both
 * are restored to every CPU at the end. It answers "does the hop cap the route's throughput when
 * the gateway is not competing for the service's CPU"; the default (nothing pinned) shares every
 * core, as the original "today" figure did. The gateway goals (≥ 0.9× throughput, added p50
 * ≤ 1 ms at 500/s) are read in the pinned layout (docs/benchmarks/gateway.md "Stage 7"); shared, the
 * ratio is the CPU accounting the gateway's CPU per request already measures.
 *
 * Each round also prints where the CPU went per request in each phase: the whole machine, the
 * service processes, PostgreSQL and Redis, so "through the gateway" minus "direct" is what the hop
 * costs everything, not only the gateway process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import http from 'node:http';
import { imageNodeOptions } from './image-node-options.ts';
import { compiledStart, removeDeployed } from './compiled-start.ts';
import { cpuMs, machineBusyMs, postgresCpu, postgresCpuMs, statusMb } from './proc-stats.ts';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 8);
/** BLK-3: the stand-in's and the social service's route. */
const PATH = '/api/users/me/blocked';
const root = fileURLToPath(new URL('..', import.meta.url));
/** The image's node options (the heap cap), applied as the image applies them. */
const IMAGE_NODE_FLAGS = imageNodeOptions(root);

/** BENCH_PIN: the CPUs of the service side and of the gateway side (Linux taskset). */
const PIN = process.env.BENCH_PIN === '1';
const cpuCount = Number(readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 1);
const SERVICE_CPUS = '0';
const GATEWAY_CPUS = String(cpuCount - 1);
const ALL_CPUS = `0-${cpuCount - 1}`;

if (process.argv[2] === 'upstream') {
  await runUpstream();
} else if (process.argv[2] === 'bare-proxy') {
  await runBareProxy();
} else {
  await main();
  // The object store and NATS of the real-service modes keep handles open: end here.
  process.exit(0);
}

/** The service side: the fleet's HTTP shell with one authenticated route and no database. */
async function runUpstream(): Promise<void> {
  const { createHttpApp, requireCaller, runServer } = await import('../packages/http/src/index.ts');
  const { pageSchema, toPage, UserSummarySchema } = await import('../packages/contracts/src/index.ts');
  const app = await createHttpApp({ service: 'social', logLevel: 'info' });
  // BLK-3's real answer shape (a Page of user summaries), serialised from its schema like every service route.
  app.get(PATH, { schema: { response: { 200: pageSchema(UserSummarySchema) } } }, async (request) => {
    const caller = requireCaller(request);
    const user = {
      id: caller.userId + 1,
      username: 'blocked-one',
      displayName: 'Blocked One',
      avatarUrl: null,
      tier: 'FREE' as const,
      isFollowing: false,
      followerCount: 3,
      trackCount: 1,
    };
    return toPage([user], 1, 0, 20);
  });
  await runServer(app, { host: '127.0.0.1', port: Number(process.env.PORT) });
}

/**
 * BENCH_GATEWAY=bare: the cheapest HTTP hop Node makes, in the gateway's place: Node's http server
 * and one undici pool (the gateway's client), every request forwarded as it came (method, path,
 * headers but the connection ones; no token, no limits, no log, no span, no signing) and the answer
 * streamed back. The floor under any gateway written in Node, on the same machine and route.
 * BENCH_GATEWAY=minimal adds only the gateway's unavoidable work per request, with its own code:
 * the gate script (one auto-pipelined Redis round trip, gate.ts `passGate`), the assertion's HMAC
 * (`signAssertion`) and one log line (pino, the fleet's batched stdout).
 */
async function runBareProxy(): Promise<void> {
  const { Pool } = (await import(new URL('../gateway/node_modules/undici/index.js', import.meta.url).href)) as typeof import('undici');
  const pool = new Pool(process.env.UPSTREAM_URL!, { connections: 2048 });
  const minimal = process.env.BARE_MINIMAL === '1';
  const { createRedis } = await import('../gateway/src/redis.ts');
  const { passGate } = await import('../gateway/src/gate.ts');
  const { deriveAssertionKey, DEV_GATEWAY_SIGNING_KEY, logDestination, signAssertion } = await import('../packages/http/src/index.ts');
  const { default: pino } = (await import(new URL('../packages/http/node_modules/pino/pino.js', import.meta.url).href)) as {
    default: typeof import('pino').default;
  };
  const redis = minimal ? createRedis('redis://127.0.0.1:6379', `bench-bare-${process.pid}:`) : null;
  const key = deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, 'catalog');
  const log = pino({ base: { service: 'gateway' } }, logDestination());
  const limits = { clientPerMinute: 100_000_000, userPerMinute: 100_000_000 };
  let seq = 0;
  const server = http.createServer(async (req, res) => {
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    const started = performance.now();
    if (redis) {
      await passGate(redis, '127.0.0.1', { userId: '42', sessionId: 'bench-session' }, limits);
      // Signed as the gateway signs (the bench's direct assertion, already in the headers, stays the one checked).
      void signAssertion(key, { method: req.method!, url: req.url!, requestId: `bare-${++seq}`, headers });
      res.on('finish', () =>
        log.info({ method: req.method, url: req.url, statusCode: res.statusCode, responseTime: performance.now() - started }, 'request completed'),
      );
    }
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : req;
    pool.request({ method: req.method as 'GET', path: req.url!, headers, body }).then(
      (answer) => {
        const out = { ...answer.headers };
        delete out.connection;
        delete out['keep-alive'];
        delete out['transfer-encoding'];
        res.writeHead(answer.statusCode, out);
        answer.body.pipe(res);
      },
      () => {
        res.statusCode = 502;
        res.end();
      },
    );
  });
  server.keepAliveTimeout = 72_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
}

function spawnNode(file: string, env: Record<string, string>, args: string[] = [], nodeFlags: string[] = []): ChildProcess {
  return spawn(process.execPath, [...IMAGE_NODE_FLAGS, ...nodeFlags, '--import', 'tsx', file, ...args], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** The gateway or a service (`gateway`, `services/social`): compiled and deployed as the image runs it, or its sources (BENCH_TSX=1). */
function spawnWorkload(workload: string, env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  if (process.env.BENCH_TSX === '1') return spawnNode(`${workload}/src/server.ts`, env, [], nodeFlags);
  const { cwd, nodeOptions, entry } = compiledStart(root, workload, 'gwhop');
  return spawn(process.execPath, [...nodeOptions, ...nodeFlags, ...entry], {
    cwd,
    env: { ...process.env, NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function pin(pid: number | undefined, cpus: string): Promise<void> {
  if (pid) await run('taskset', ['-a', '-p', '-c', cpus, String(pid)]);
}

/** The oldest process named `name` (PostgreSQL's postmaster, redis-server). */
async function oldest(name: string): Promise<number | undefined> {
  const { stdout } = await run('pgrep', ['-o', '-x', name]).catch(() => ({ stdout: '' }));
  return stdout.trim() ? Number(stdout.trim()) : undefined;
}

async function waitFor(url: string, headers: Record<string, string> = {}): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(url, { headers });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function wrk(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; requests: number; p50: string }> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = PIN
    ? await run('taskset', ['-c', GATEWAY_CPUS, 'wrk', ...args, url], { maxBuffer: 1 << 20 })
    : await run('wrk', [...args, url], { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const p50 = /^\s+50%\s+(\S+)/m.exec(stdout)?.[1] ?? '?';
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  if (non2xx) throw new Error(`${url}: ${non2xx[1]} answers were not 2xx`);
  return { rps, requests, p50 };
}

/** Open loop: one request every 1000/RATE ms whatever the answers do; latencies in ms. */
async function fixedRate(
  origin: string,
  headers: () => Record<string, string>,
  seconds: number,
  path = PATH,
): Promise<{ latencies: number[]; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const get = (requestHeaders: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const request = http.get(`${origin}${path}`, { agent, headers: requestHeaders }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      });
      request.on('error', reject);
    });
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.round(RATE * seconds);
  const interval = 1000 / RATE;
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inflight.push(
      (async () => {
        const sent = performance.now();
        try {
          if ((await get(headers())) !== 200) errors++;
          latencies.push(performance.now() - sent);
        } catch {
          errors++;
        }
      })(),
    );
  }
  await Promise.all(inflight);
  agent.destroy();
  return { latencies, errors };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The middle value, or the mean of the two middle ones for an even count (percentile() would give the upper one). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const { createTestJwks, freePort } = await import('../packages/testing/src/index.ts');
  const { deriveAssertionKey, DEV_GATEWAY_SIGNING_KEY, signAssertion } = await import('../packages/http/src/index.ts');
  const jwks = await createTestJwks();
  const [upstreamPort, gatewayPort] = [await freePort(), await freePort()];
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const mode = process.env.BENCH_UPSTREAM ?? 'stand-in';
  const realSocial = mode === 'social';
  const realCatalog = mode === 'catalog';
  // BENCH_UPSTREAM_PROFILE_DIR=<dir>: a V8 CPU profile of the service (social or catalog) there.
  const upstreamProfile = process.env.BENCH_UPSTREAM_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_UPSTREAM_PROFILE_DIR}`] : [];
  /** The measured route: BLK-3, or TRK-6 (a track by id) in front of catalog. */
  let route = PATH;
  let upstream: ChildProcess;
  const extra: ChildProcess[] = [];
  if (realCatalog) {
    // TRK-6 with a caller on the seed's data (bench/seed.ts): catalog reads the track with its
    // artist in one statement and asks social once for the caller's flags, as in production.
    const { createPgPool } = await import('../packages/db/src/index.ts');
    const { startNatsServer, startS3rver, testInfra } = await import('../packages/testing/src/index.ts');
    const pg = testInfra().postgresUrl;
    const db = createPgPool(`${pg}/bench_catalog`, 1);
    const [{ id }] = (
      await db.query<{ id: number }>(
        `SELECT t.id FROM tracks t JOIN user_summaries u ON u.user_id = t.artist_id
          WHERE t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED' AND NOT u.is_banned AND NOT u.is_deleted
          ORDER BY t.id LIMIT 1 OFFSET 1000`,
      )
    ).rows as [{ id: number }];
    await db.end();
    route = `/api/tracks/${id}`;
    const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
    process.on('exit', () => void Promise.all([nats.close(), s3.close()]));
    const socialPort = await freePort();
    const common = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NATS_URL: nats.url,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      REDIS_KEY_PREFIX: `bench-gwhop-svc-${process.pid}:`,
      CATALOG_URL: upstreamUrl,
      SOCIAL_URL: `http://127.0.0.1:${socialPort}`,
    };
    extra.push(spawnWorkload('services/social', { ...common, PORT: String(socialPort), DATABASE_URL: `${pg}/bench_social` }));
    upstream = spawnWorkload('services/catalog', { ...common, PORT: String(upstreamPort), DATABASE_URL: `${pg}/bench_catalog` }, upstreamProfile);
  } else if (realSocial) {
    const { dropDatabase } = await import('../packages/db/src/index.ts');
    const { startS3rver, testInfra } = await import('../packages/testing/src/index.ts');
    const databaseUrl = `${testInfra().postgresUrl}/bench_gwhop_social`;
    await dropDatabase(databaseUrl);
    const s3 = await startS3rver();
    process.on('exit', () => void s3.close());
    upstream = spawnWorkload(
      'services/social',
      {
        PORT: String(upstreamPort),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'info',
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY: s3.accessKey,
        S3_SECRET_KEY: s3.secretKey,
      },
      upstreamProfile,
    );
  } else {
    upstream = spawnNode('bench/gateway-hop.ts', { PORT: String(upstreamPort), HOST: '127.0.0.1' }, ['upstream']);
  }
  const serviceEnv = Object.fromEntries(
    ['IDENTITY', 'CATALOG', 'MEDIA_PROCESSING', 'SOCIAL', 'MESSAGING', 'NOTIFICATION', 'BILLING'].map((s) => [`${s}_URL`, upstreamUrl]),
  );
  const owner = realCatalog ? 'catalog' : 'social';
  const bare = process.env.BENCH_GATEWAY === 'bare' || process.env.BENCH_GATEWAY === 'minimal';
  const gateway = bare
    ? spawnNode(
        'bench/gateway-hop.ts',
        { PORT: String(gatewayPort), UPSTREAM_URL: upstreamUrl, BARE_MINIMAL: process.env.BENCH_GATEWAY === 'minimal' ? '1' : '0' },
        ['bare-proxy'],
      )
    : spawnWorkload(
        'gateway',
        {
          ...serviceEnv,
          PORT: String(gatewayPort),
          HOST: '127.0.0.1',
          JWKS_URL: jwks.url,
          REDIS_KEY_PREFIX: `bench-gwhop-${process.pid}:`,
          RATE_LIMIT_CLIENT_PER_MINUTE: '100000000',
          RATE_LIMIT_USER_PER_MINUTE: '100000000',
          LOG_LEVEL: 'info',
        },
        process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [],
      );
  const children = [upstream, gateway, ...extra];
  const [postmaster, redisServer] = [await oldest('postgres'), await oldest('redis-server')];
  /**
   * Where a phase's CPU went, per request: the whole machine (/proc/stat), the service processes,
   * every PostgreSQL process and Redis. Direct against through the gateway shows what the hop
   * costs everything, not only the gateway process (e.g. work a service does only for forwarded
   * requests).
   */
  const sideCpu = () => {
    const services = [upstream, ...extra].map((child) => child.pid!);
    const sample = () => ({
      machine: machineBusyMs(),
      services: services.map((p) => cpuMs(p)),
      postgres: postgresCpu(),
      redis: redisServer ? cpuMs(redisServer) : 0,
    });
    const before = sample();
    return {
      perRequest(requests: number): string {
        const after = sample();
        const us = (ms: number) => ((ms * 1000) / requests).toFixed(0);
        const names = realCatalog ? ['catalog', 'social'] : [owner];
        return [
          `machine ${us(after.machine - before.machine)}`,
          ...names.map((name, i) => `${name} ${us(after.services[i]! - before.services[i]!)}`),
          `postgres ${us(postgresCpuMs(before.postgres, after.postgres))}`,
          `redis ${us(after.redis - before.redis)}`,
        ].join(', ');
      },
    };
  };
  const unpin = () => {
    if (!PIN) return;
    for (const pid of [postmaster, redisServer, process.pid]) if (pid) spawn('taskset', ['-a', '-p', '-c', ALL_CPUS, String(pid)], { stdio: 'ignore' });
  };
  const stop = () => {
    children.forEach((child) => child.kill('SIGTERM'));
    unpin();
    removeDeployed();
  };
  process.on('exit', stop);
  if (PIN) {
    // Before the services open their pools: PostgreSQL's new backends inherit the postmaster's CPUs.
    await pin(postmaster, SERVICE_CPUS);
    for (const child of [upstream, ...extra]) await pin(child.pid, SERVICE_CPUS);
    for (const pid of [gateway.pid, redisServer, process.pid]) await pin(pid, GATEWAY_CPUS);
  }

  try {
    const token = await jwks.sign({ sub: '42', username: 'bench', role: 'LISTENER', tier: 'FREE', sid: 'bench-session' }, { expiresIn: '2h' });
    const bearer = { authorization: `Bearer ${token}` };
    const assertionKey = deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, owner);
    const directHeaders = (): Record<string, string> => {
      const headers: Record<string, string> = {
        'x-request-id': 'bench-direct',
        'x-client-ip': '127.0.0.1',
        'x-user-id': '42',
        'x-user-role': 'LISTENER',
        'x-user-tier': 'FREE',
        'x-session-id': 'bench-session',
        'x-username': 'bench',
      };
      headers['x-gateway-assertion'] = signAssertion(assertionKey, { method: 'GET', url: route, requestId: 'bench-direct', headers });
      return headers;
    };
    // The bare proxy checks nothing: it gets what the gateway would have forwarded.
    const viaHeaders = (): Record<string, string> => (bare ? directHeaders() : bearer);
    await waitFor(`${upstreamUrl}${route}`, directHeaders());
    await waitFor(`${gatewayUrl}${route}`, viaHeaders());
    // The direct route must really be authenticated (the assertion accepted), or the comparison is void.
    const check = await fetch(`${upstreamUrl}${route}`, { headers: directHeaders() });
    if (check.status !== 200) throw new Error(`direct call answered ${check.status}`);

    const pid = gateway.pid!;
    console.log(
      `${bare ? `BENCH_GATEWAY=${process.env.BENCH_GATEWAY}: a ${process.env.BENCH_GATEWAY} proxy in the gateway's place; ` : ''}${PIN ? `pinned: service side CPU ${SERVICE_CPUS}, gateway side CPU ${GATEWAY_CPUS}; ` : ''}gateway-hop (${realCatalog ? `real catalog + social, TRK-6 ${route} with a caller on the seed's data` : realSocial ? 'real social service, BLK-3 from PostgreSQL' : 'stand-in service, no database'}): ${CONNECTIONS} connections, ${SECONDS} s per phase, ${ROUNDS} rounds, fixed rate ${RATE}/s; node ${process.version}, ${cpuCount} cores, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    // Warm-up: JIT, connection pools, the token cache. 3 s left catalog's first direct phase ~25 %
    // dearer per request than the later ones (round 1's ratio then read above 1.1).
    await wrk(`${upstreamUrl}${route}`, directHeaders(), WARMUP_SECONDS);
    await wrk(`${gatewayUrl}${route}`, viaHeaders(), WARMUP_SECONDS);

    const ratios: number[] = [];
    const cpuPerRequest: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const gatewayFirst = round % 2 === 0;
      const phases = gatewayFirst ? ['gateway', 'direct'] : ['direct', 'gateway'];
      const results: Record<string, { rps: number; requests: number; p50: string; cpuUs?: number }> = {};
      const spent: Record<string, string> = {};
      for (const phase of phases) {
        const side = sideCpu();
        if (phase === 'direct') {
          results.direct = await wrk(`${upstreamUrl}${route}`, directHeaders(), SECONDS);
        } else {
          const before = cpuMs(pid);
          const result = await wrk(`${gatewayUrl}${route}`, viaHeaders(), SECONDS);
          results.gateway = { ...result, cpuUs: ((cpuMs(pid) - before) * 1000) / result.requests };
        }
        spent[phase] = side.perRequest(results[phase]!.requests);
      }
      const ratio = results.gateway!.rps / results.direct!.rps;
      ratios.push(ratio);
      cpuPerRequest.push(results.gateway!.cpuUs!);
      console.log(
        `round ${round}: direct ${results.direct!.rps.toFixed(0)} req/s (p50 ${results.direct!.p50}), gateway ${results.gateway!.rps.toFixed(0)} req/s (p50 ${results.gateway!.p50}), ratio ${ratio.toFixed(2)}, gateway CPU ${results.gateway!.cpuUs!.toFixed(0)} µs/request`,
      );
      console.log(`  CPU µs/request, direct: ${spent.direct}; through the gateway: ${spent.gateway}`);
    }
    console.log(
      `throughput ratio gateway/direct: median ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}); gateway CPU at saturation: median ${median(cpuPerRequest).toFixed(0)} µs/request`,
    );

    const p50Direct: number[] = [];
    const p50Gateway: number[] = [];
    const fixedCpu: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const direct = await fixedRate(upstreamUrl, directHeaders, SECONDS, route);
      const before = cpuMs(pid);
      const via = await fixedRate(gatewayUrl, viaHeaders, SECONDS, route);
      fixedCpu.push(((cpuMs(pid) - before) * 1000) / via.latencies.length);
      const [d50, g50] = [percentile(direct.latencies, 50), percentile(via.latencies, 50)];
      p50Direct.push(d50);
      p50Gateway.push(g50);
      console.log(
        `fixed ${RATE}/s round ${round}: direct p50 ${d50.toFixed(2)} ms p99 ${percentile(direct.latencies, 99).toFixed(2)} ms (${direct.errors} errors); gateway p50 ${g50.toFixed(2)} ms p99 ${percentile(via.latencies, 99).toFixed(2)} ms (${via.errors} errors); added p50 ${(g50 - d50).toFixed(2)} ms; gateway CPU ${fixedCpu.at(-1)!.toFixed(0)} µs/request`,
      );
    }
    const added = p50Gateway.map((g, i) => g - p50Direct[i]!);
    console.log(
      `added p50 at ${RATE}/s: median ${median(added).toFixed(2)} ms; gateway CPU at ${RATE}/s: median ${median(fixedCpu).toFixed(0)} µs/request; RSS gateway ${statusMb(pid, 'VmRSS')} MB, service ${statusMb(upstream.pid!, 'VmRSS')} MB`,
    );
  } finally {
    stop();
    await jwks.close();
  }
}

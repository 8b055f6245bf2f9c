/**
 * Two (or more) gateways side by side in one run (a benchmark, not a test): the paired comparison
 * for a change of the gateway on a machine too noisy for sequential runs.
 *
 *   BENCH_VARIANTS='{"before":{"root":"/path/to/old/checkout"},"after":{}}' npx tsx bench/gateway-ab.ts
 *   BENCH_VARIANTS='{"plain":{},"pipelined":{"env":{"SOME_FLAG":"1"}}}' npx tsx bench/gateway-ab.ts
 *
 * Each variant is the gateway of `root` (default this checkout) built and deployed as the image runs
 * it (bench/compiled-start.ts) and started with `env` on top of the bench's and `nodeFlags` (e.g.
 * `["--cpu-prof", "--cpu-prof-dir=/tmp/prof"]`) after the image's; all of them proxy BLK-3
 * to one stand-in service (bench/gateway-hop.ts's, no database) with a bearer token of a test JWKS.
 * After a 3-s warm-up each, BENCH_ROUNDS (6) rounds send wrk (32 connections, BENCH_SECONDS = 5 s)
 * to every variant in turn, the order reversed every other round; per variant: CPU per request
 * (user + system time of its process from /proc over its phases), the local Redis server's CPU per
 * request over the same phases (the gateway's Redis work is on the machine too: on shared cores it
 * is taken from the services) and requests/s, each round and the mean. BENCH_UPSTREAM_URL=<url>
 * proxies to a service already listening there instead of the stand-in (e.g. a bare HTTP server
 * that answers every path with the same JSON: the hop alone). BENCH_LOG_PIPE=1 pipes each gateway's
 * log lines to this process instead of /dev/null. BENCH_CONNECTIONS (32) and BENCH_PACE_MS (a delay
 * before each request of a connection: below saturation) shape the load.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compiledStart, removeDeployed } from './compiled-start.ts';
import { cpuMs } from './proc-stats.ts';

const run = promisify(execFile);
const here = fileURLToPath(new URL('..', import.meta.url));
const PATH = '/api/users/me/blocked';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
// BENCH_LOG_PIPE=1: each gateway's stdout is a pipe this process reads (as a container runtime reads
// a pod's log), not /dev/null, so that a log write costs what it costs in a deployment.
const LOG_PIPE = process.env.BENCH_LOG_PIPE === '1';
// BENCH_PACE_MS=<ms>: each connection waits that long before each request (a wrk script), so the
// gateways run below saturation (BENCH_CONNECTIONS ÷ pace, e.g. 8 connections at 25 ms: ~300/s),
// where per-request costs that batch away at saturation (a log write, a Redis write) show.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PACE = process.env.BENCH_PACE_MS ? paceScript(Number(process.env.BENCH_PACE_MS)) : undefined;
function paceScript(ms: number): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gateway-ab-')), 'pace.lua');
  writeFileSync(file, `function delay()\n  return ${ms}\nend\n`);
  return file;
}
const VARIANTS = JSON.parse(process.env.BENCH_VARIANTS ?? '{"this checkout":{}}') as Record<
  string,
  { root?: string; env?: Record<string, string>; nodeFlags?: string[] }
>;

const { createTestJwks, freePort } = await import('../packages/testing/src/index.ts');

async function wrk(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; requests: number }> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, ...(PACE ? ['-s', PACE] : [])];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('wrk', [...args, url]);
  if (/Non-2xx or 3xx responses/.test(stdout)) throw new Error(`${url}: answers that were not 2xx`);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]), requests: Number(/(\d+) requests in/.exec(stdout)?.[1]) };
}

const jwks = await createTestJwks();
const children: ChildProcess[] = [];
process.on('exit', () => {
  children.forEach((child) => child.kill('SIGTERM'));
  removeDeployed();
});
let upstream = process.env.BENCH_UPSTREAM_URL ?? '';
if (!upstream) {
  const upstreamPort = await freePort();
  children.push(
    spawn(process.execPath, ['--import', 'tsx', 'bench/gateway-hop.ts', 'upstream'], {
      cwd: here,
      env: { ...process.env, PORT: String(upstreamPort), HOST: '127.0.0.1', NODE_ENV: 'development' },
      stdio: 'ignore',
    }),
  );
  upstream = `http://127.0.0.1:${upstreamPort}`;
}
const serviceUrls = Object.fromEntries(
  ['IDENTITY', 'CATALOG', 'MEDIA_PROCESSING', 'SOCIAL', 'MESSAGING', 'NOTIFICATION', 'BILLING'].map((s) => [`${s}_URL`, upstream]),
);
const gateways: Array<{ name: string; url: string; pid: number }> = [];
for (const [index, [name, variant]] of Object.entries(VARIANTS).entries()) {
  const port = await freePort();
  const { cwd, nodeOptions, entry } = compiledStart(path.resolve(variant.root ?? here), 'gateway', `ab${index}`);
  const child = spawn(process.execPath, [...nodeOptions, ...(variant.nodeFlags ?? []), ...entry], {
    cwd,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      ...serviceUrls,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWKS_URL: jwks.url,
      REDIS_KEY_PREFIX: `bench-gwab-${index}-${process.pid}:`,
      RATE_LIMIT_CLIENT_PER_MINUTE: '100000000',
      RATE_LIMIT_USER_PER_MINUTE: '100000000',
      LOG_LEVEL: 'info',
      ...variant.env,
    },
    stdio: ['ignore', LOG_PIPE ? 'pipe' : 'ignore', 'inherit'],
  });
  child.stdout?.resume();
  children.push(child);
  gateways.push({ name, url: `http://127.0.0.1:${port}${PATH}`, pid: child.pid! });
}

const token = await jwks.sign({ sub: '42', username: 'bench', role: 'LISTENER', tier: 'FREE', sid: 'bench-session' }, { expiresIn: '2h' });
const bearer = { authorization: `Bearer ${token}` };
for (const gateway of gateways) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await fetch(gateway.url, { headers: bearer }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`${gateway.name} did not answer 200`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await wrk(gateway.url, bearer, 3);
}

console.log(
  `gateway-ab: ${gateways.length} gateways, ${ROUNDS} rounds of ${SECONDS} s each, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
const redisPid = Number((await run('pgrep', ['-x', 'redis-server']).catch(() => ({ stdout: '' }))).stdout.split('\n')[0]) || undefined;
const redisCpu = () => (redisPid ? cpuMs(redisPid) : 0);
const results = new Map(gateways.map((g) => [g.name, { cpu: [] as number[], redis: [] as number[], rps: [] as number[] }]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? gateways : [...gateways].reverse();
  for (const gateway of order) {
    const before = cpuMs(gateway.pid);
    const redisBefore = redisCpu();
    const result = await wrk(gateway.url, bearer, SECONDS);
    results.get(gateway.name)!.cpu.push(((cpuMs(gateway.pid) - before) * 1000) / result.requests);
    results.get(gateway.name)!.redis.push(((redisCpu() - redisBefore) * 1000) / result.requests);
    results.get(gateway.name)!.rps.push(result.rps);
  }
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
for (const [name, r] of results) {
  console.log(
    `${name}: CPU per request mean ${mean(r.cpu).toFixed(0)} µs (${r.cpu.map((v) => v.toFixed(0)).join(', ')}), Redis ${redisPid ? `${mean(r.redis).toFixed(0)} µs (${r.redis.map((v) => v.toFixed(0)).join(', ')})` : 'not found'}, requests/s mean ${mean(r.rps).toFixed(0)} (${r.rps.map((v) => v.toFixed(0)).join(', ')})`,
  );
}
await jwks.close();
process.exit(0);

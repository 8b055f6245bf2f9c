/**
 * `pnpm dev`: runs the whole fleet on this machine with local defaults.
 * - checks that PostgreSQL, Redis and NATS answer (it starts nothing you did not ask for) and that
 *   the fleet's own ports are free,
 * - starts the embedded object store (s3rver, data in .data/s3) unless S3_ENDPOINT is set,
 * - starts the local Stripe stand-in (127.0.0.1:12111) unless STRIPE_API_HOST is set, delivering
 *   signed webhook events to the gateway (see services/billing/README.md),
 * - starts the local OpenID provider standing in for Google (127.0.0.1:12112, scripts/oidc-stand-in.ts)
 *   unless GOOGLE_CLIENT_ID is set, and points identity at it,
 * - generates the Prisma clients if they are missing,
 * - starts the seven services (each creates and migrates its own database) and the gateway,
 * - waits for /api/health and prints the URL.
 *
 * It supervises the fleet: a process that exits is started again after a backoff (1 s, doubling
 * while it keeps failing within 30 s of its start, at most 30 s), each restart logged. Ctrl-C,
 * SIGTERM, SIGHUP or the end of its parent process (pnpm) stops everything within 10 s: SIGTERM
 * to every process group, SIGKILL to what is left after 6 s, then the stand-ins close; a second
 * signal (a second after the first or later) kills at once.
 *
 * Settings of the runner itself (the rest of the environment reaches every process):
 * PORT (8080) is the gateway's port, the services take the next seven (8081–8087);
 * S3RVER_PORT (4569) and S3RVER_DIRECTORY (.data/s3) for the object store; STRIPE_API_PORT
 * (12111) for the Stripe stand-in; OIDC_STAND_IN_PORT (12112) for the Google stand-in;
 * DEV_DATABASE_PREFIX (unset: each service's own msp_<service>) names the databases
 * <prefix>_<service> on DATABASE_HOST_URL (postgresql://postgres@127.0.0.1:5432).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { DEFAULT_PORTS } from '../packages/config/src/shapes.ts';
import { startStripeStandIn, type StripeStandIn } from '../services/billing/src/dev/stripe-stand-in.ts';
import { DEV_STRIPE } from '../services/billing/src/config.ts';
import { DEV_OIDC, startOidcStandIn, type OidcStandIn } from './oidc-stand-in.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const services = ['identity', 'catalog', 'media-processing', 'social', 'messaging', 'notification', 'billing'] as const;
type Name = (typeof services)[number] | 'gateway';
const colors = [31, 32, 33, 34, 35, 36, 91, 92];
const gatewayPort = Number(process.env.PORT ?? DEFAULT_PORTS.gateway);
const portOf = (name: Name): number => gatewayPort + DEFAULT_PORTS[name] - DEFAULT_PORTS.gateway;
const urlEnvName = (name: Name) => `${name.toUpperCase().replace(/-/g, '_')}_URL`;
const databaseHost = process.env.DATABASE_HOST_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const s3Port = Number(process.env.S3RVER_PORT ?? 4569);
const stripePort = Number(process.env.STRIPE_API_PORT ?? DEV_STRIPE.port);
const oidcPort = Number(process.env.OIDC_STAND_IN_PORT ?? DEV_OIDC.port);
const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${gatewayPort}`;
const webBaseUrl = process.env.WEB_BASE_URL ?? 'http://localhost:3000';

/** Backoff of restarts: first delay, ceiling, and how long a process must run to count as healthy again. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
const STABLE_AFTER_MS = 30_000;
/** Stopping: SIGTERM, SIGKILL after this, and the process exits by STOP_DEADLINE_MS whatever happens. */
const TERM_GRACE_MS = 6000;
const STOP_DEADLINE_MS = 9500;
/** A signal this soon after the first is the same one delivered again, not a second Ctrl-C. */
const REPEAT_SIGNAL_MS = 1000;

function answers(url: string, fallbackPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || fallbackPort) });
    socket.setTimeout(1500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function checkInfrastructure(): Promise<void> {
  const checks: Array<[string, string, number]> = [
    ['PostgreSQL', databaseHost, 5432],
    ['Redis', process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 6379],
    ['NATS', process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 4222],
  ];
  const missing: string[] = [];
  for (const [name, url, port] of checks) if (!(await answers(url, port))) missing.push(`${name} (${url})`);
  if (missing.length > 0) {
    console.error(`Not reachable: ${missing.join(', ')}.`);
    console.error('Start them with `docker compose up -d postgres nats redis` or as described in README.md, then run `pnpm dev` again.');
    process.exit(1);
  }
}

/** Every port the fleet will listen on must be free: a leftover process would make a child crash-loop. */
async function checkPorts(): Promise<void> {
  const wanted: Array<[string, number, string]> = [
    ['gateway', gatewayPort, 'set PORT to move the whole fleet'],
    ...services.map((s): [string, number, string] => [s, portOf(s), 'set PORT to move the whole fleet']),
  ];
  if (!process.env.S3_ENDPOINT) wanted.push(['embedded object store', s3Port, 'set S3RVER_PORT, or point S3_ENDPOINT at your S3 server']);
  if (!process.env.STRIPE_API_HOST)
    wanted.push(['Stripe stand-in', stripePort, 'set STRIPE_API_PORT, or point STRIPE_API_HOST/PORT/PROTOCOL at your Stripe API']);
  if (!process.env.GOOGLE_CLIENT_ID)
    wanted.push(['Google stand-in', oidcPort, 'set OIDC_STAND_IN_PORT, or configure GOOGLE_CLIENT_ID (services/identity/README.md)']);
  const taken: string[] = [];
  for (const [what, port, hint] of wanted) if (await answers(`http://127.0.0.1:${port}`, port)) taken.push(`${port} (${what}: ${hint})`);
  if (taken.length > 0) {
    console.error(`Port taken, stop what runs there: ${taken.join('; ')}.`);
    process.exit(1);
  }
}

function generateClientsIfMissing(): void {
  const missing = services.filter((s) => !existsSync(path.join(root, 'services', s, 'src/generated/prisma/client.ts')));
  if (missing.length === 0) return;
  console.log(`Generating Prisma clients (${missing.join(', ')})...`);
  const result = spawnSync('pnpm', ['run', 'generate'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

interface Supervised {
  name: Name;
  cwd: string;
  env: NodeJS.ProcessEnv;
  prefix: string;
  child: ChildProcess | null;
  startedAt: number;
  /** Exits in a row, each within STABLE_AFTER_MS of its start. */
  failures: number;
  restarts: number;
  timer: NodeJS.Timeout | null;
}

const fleet: Supervised[] = [];
let stopping = false;
let stoppingSince = 0;
let healthyOnce = false;
let watchingHealth = false;
let s3: S3rver | null = null;
let stripe: StripeStandIn | null = null;
let oidc: OidcStandIn | null = null;

function pipe(stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, prefix: string): void {
  let buffer = '';
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) out.write(prefix + line + '\n');
  });
  stream.on('end', () => {
    if (buffer) out.write(prefix + buffer + '\n');
  });
}

/** Signals the child's whole process group (it runs detached: tools it spawns go with it). */
function signal(proc: Supervised, sig: NodeJS.Signals): void {
  const pid = proc.child?.pid;
  if (pid === undefined || proc.child?.exitCode !== null || proc.child.signalCode !== null) return;
  try {
    process.kill(-pid, sig);
  } catch {
    proc.child.kill(sig); // the group is gone already; the process itself, in case
  }
}

function spawnChild(proc: Supervised): void {
  proc.timer = null;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: proc.cwd,
    env: proc.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the runner decides when it stops (a terminal's Ctrl-C reaches the runner
    // only), and stopping it also stops what it spawned.
    detached: true,
  });
  proc.child = child;
  proc.startedAt = Date.now();
  pipe(child.stdout!, process.stdout, proc.prefix);
  pipe(child.stderr!, process.stderr, proc.prefix);
  console.log(`${proc.prefix}started (pid ${child.pid})`);
  child.once('error', (err) => console.error(`${proc.prefix}could not start: ${err.message}`));
  child.once('exit', (code, sig) => {
    if (proc.child === child) proc.child = null;
    if (stopping) return;
    const ranMs = Date.now() - proc.startedAt;
    proc.failures = ranMs < STABLE_AFTER_MS ? proc.failures + 1 : 1;
    proc.restarts += 1;
    const delay = Math.min(RESTART_FIRST_MS * 2 ** (proc.failures - 1), RESTART_MAX_MS);
    console.error(
      `${proc.prefix}exited (${sig ?? `code ${code}`}) after ${(ranMs / 1000).toFixed(1)} s; restarting in ${delay / 1000} s (restart ${proc.restarts})`,
    );
    proc.timer = setTimeout(() => {
      if (stopping) return;
      spawnChild(proc);
      void reportHealthAgain();
    }, delay);
  });
}

function supervise(name: Name, cwd: string, color: number, env: NodeJS.ProcessEnv): void {
  const proc: Supervised = {
    name,
    cwd,
    env: { NODE_ENV: 'development', ...env },
    prefix: `\x1b[${color}m${name.padEnd(16)}\x1b[0m│ `,
    child: null,
    startedAt: 0,
    failures: 0,
    restarts: 0,
    timer: null,
  };
  fleet.push(proc);
  spawnChild(proc);
}

function running(): Supervised[] {
  return fleet.filter((p) => p.child !== null && p.child.exitCode === null && p.child.signalCode === null);
}

function allExited(timeoutMs: number): Promise<boolean> {
  const pending = running().map((p) => new Promise<void>((resolve) => p.child!.once('exit', () => resolve())));
  return Promise.race([Promise.all(pending).then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref())]);
}

/** Closes one in-process stand-in, giving up after a second: it dies with the process anyway. */
async function closeQuietly(name: string, close: (() => Promise<void>) | undefined): Promise<void> {
  if (!close) return;
  const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
  await Promise.race([close().catch((err: unknown) => console.error(`${name} did not close cleanly: ${String(err)}`)), gaveUp]);
}

async function stop(code: number, why: string): Promise<void> {
  if (stopping) {
    // Under `pnpm dev` one Ctrl-C arrives up to three times (the terminal's, relayed by pnpm and by tsx).
    if (Date.now() - stoppingSince < REPEAT_SIGNAL_MS) return;
    console.error(`${why} again: killing the fleet now.`);
    for (const proc of running()) signal(proc, 'SIGKILL');
    process.exit(code || 1);
  }
  stopping = true;
  stoppingSince = Date.now();
  console.log(`${why}: stopping the fleet.`);
  // Whatever hangs below, the runner (and with it every in-process stand-in and its port) is gone by then.
  setTimeout(() => {
    console.error('The fleet did not stop in time: killing what is left.');
    for (const proc of running()) signal(proc, 'SIGKILL');
    process.exit(code || 1);
  }, STOP_DEADLINE_MS).unref();
  for (const proc of fleet) if (proc.timer) clearTimeout(proc.timer);
  for (const proc of running()) signal(proc, 'SIGTERM');
  if (!(await allExited(TERM_GRACE_MS))) {
    const left = running();
    console.error(`Still running after ${TERM_GRACE_MS / 1000} s: ${left.map((p) => p.name).join(', ')}; killing them.`);
    for (const proc of left) signal(proc, 'SIGKILL');
    await allExited(1500);
  }
  await Promise.all([
    closeQuietly('object store', s3 ? () => s3!.close() : undefined),
    closeQuietly('Stripe stand-in', stripe ? () => stripe!.close() : undefined),
    closeQuietly('Google stand-in', oidc ? () => oidc!.close() : undefined),
  ]);
  process.exit(code);
}

async function healthy(): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/health`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false; // not up yet
  }
}

async function waitForHealth(timeoutMs: number, intervalMs = 500): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    if (await healthy()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return false;
}

/** After a restart: says when /api/health answers 200 again (one watcher at a time). */
async function reportHealthAgain(): Promise<void> {
  if (!healthyOnce || watchingHealth) return;
  watchingHealth = true;
  try {
    // Every second: each look asks all eight processes, and one of them is busy starting.
    if (await waitForHealth(120_000, 1000)) console.log(`\n  Fleet is healthy again: http://localhost:${gatewayPort}/api/health\n`);
  } finally {
    watchingHealth = false;
  }
}

process.on('SIGINT', () => void stop(0, 'SIGINT'));
process.on('SIGTERM', () => void stop(0, 'SIGTERM'));
process.on('SIGHUP', () => void stop(0, 'SIGHUP'));
process.on('uncaughtException', (err) => {
  console.error('pnpm dev failed:', err);
  void stop(1, 'Error');
});
process.on('unhandledRejection', (err) => {
  console.error('pnpm dev failed:', err);
  void stop(1, 'Error');
});
// Last resort when the runner exits some other way: no child outlives it.
process.on('exit', () => {
  for (const proc of running()) signal(proc, 'SIGKILL');
});
// `kill <pid of pnpm>` ends pnpm and its shell but signals nothing further down: the runner, orphaned,
// notices its parent is gone and stops the fleet as on SIGTERM.
const parentAtStart = process.ppid;
setInterval(() => {
  if (!stopping && process.ppid !== parentAtStart) void stop(0, 'Parent process exited');
}, 1000).unref();

await checkInfrastructure();
await checkPorts();
const shared: NodeJS.ProcessEnv = {
  PUBLIC_BASE_URL: publicBaseUrl,
  ...Object.fromEntries(services.map((s) => [urlEnvName(s), `http://127.0.0.1:${portOf(s)}`])),
};
const identityEnv: NodeJS.ProcessEnv = {};
try {
  if (!process.env.S3_ENDPOINT) {
    const directory = path.resolve(root, process.env.S3RVER_DIRECTORY ?? '.data/s3');
    mkdirSync(directory, { recursive: true });
    s3 = new S3rver({ port: s3Port, address: '127.0.0.1', silent: true, directory });
    await s3.run();
    shared.S3_ENDPOINT = `http://127.0.0.1:${s3Port}`;
    const shown = path.relative(root, directory);
    console.log(`Embedded object store (s3rver) on ${shared.S3_ENDPOINT}, data in ${shown.startsWith('..') ? directory : shown}`);
  }
  if (!process.env.STRIPE_API_HOST) {
    // Billing's development defaults (key, webhook secret, price) are the stand-in's.
    stripe = await startStripeStandIn({
      secretKey: process.env.STRIPE_SECRET_KEY ?? DEV_STRIPE.secretKey,
      webhookSecret: process.env.STRIPE_WEBHOOK_SECRET ?? DEV_STRIPE.webhookSecret,
      webhookUrl: `http://127.0.0.1:${gatewayPort}/api/webhook/stripe`,
      autoDeliver: true,
      host: DEV_STRIPE.host,
      port: stripePort,
    });
    shared.STRIPE_API_PORT = String(stripePort);
    console.log(`Stripe stand-in on ${stripe.url} (webhooks to the gateway; \`pnpm --filter @msp/billing stripe:trigger <type> --user <id>\`)`);
  }
  if (!process.env.GOOGLE_CLIENT_ID) {
    oidc = await startOidcStandIn({
      host: DEV_OIDC.host,
      port: oidcPort,
      // AUTH-11's callback, and the web app's page for AUTH-12 with a provider authorization code.
      redirectUris: [`${publicBaseUrl.replace(/\/+$/, '')}/api/login/oauth2/code/google`, `${webBaseUrl.replace(/\/+$/, '')}/oauth/callback`],
      log: (line) => console.log(`Google stand-in: ${line}`),
    });
    Object.assign(identityEnv, oidc.identityEnv);
    console.log(`Google stand-in (OpenID provider) on ${oidc.url}: AUTH-10 signs in any e-mail address typed there`);
  }
} catch (err) {
  console.error('A local stand-in did not start:', err);
  await stop(1, 'Start failed');
}
generateClientsIfMissing();
const prefix = process.env.DEV_DATABASE_PREFIX;
services.forEach((s, i) =>
  supervise(s, path.join(root, 'services', s), colors[i] ?? 37, {
    ...shared,
    ...process.env,
    ...(s === 'identity' ? identityEnv : {}),
    ...(prefix ? { DATABASE_URL: `${databaseHost.replace(/\/+$/, '')}/${prefix}_${s.replace(/-/g, '_')}` } : {}),
    PORT: String(portOf(s)),
  }),
);
supervise('gateway', path.join(root, 'gateway'), colors[7] ?? 37, { ...shared, ...process.env, PORT: String(gatewayPort) });

if (await waitForHealth(120_000)) {
  healthyOnce = true;
  console.log(`\n  Fleet is up: http://localhost:${gatewayPort}/api  (health: /api/health, docs: /api/docs)\n`);
} else if (!stopping) {
  healthyOnce = true;
  console.error('The fleet did not become healthy within 120 s; see the logs above. It keeps running (and restarting what exits).');
}

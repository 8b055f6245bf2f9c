/**
 * `pnpm dev`: runs the whole fleet on this machine with local defaults.
 * - checks that PostgreSQL, Redis and NATS answer (it starts nothing you did not ask for),
 * - starts the embedded object store (s3rver, data in .data/s3) unless S3_ENDPOINT is set,
 * - starts the local Stripe stand-in (127.0.0.1:12111) unless STRIPE_API_HOST is set, delivering
 *   signed webhook events to the gateway (see services/billing/README.md),
 * - generates the Prisma clients if they are missing,
 * - starts the seven services (each creates and migrates its own database) and the gateway,
 * - waits for /api/health and prints the URL. Ctrl-C stops everything.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { startStripeStandIn, type StripeStandIn } from '../services/billing/src/dev/stripe-stand-in.ts';
import { DEV_STRIPE } from '../services/billing/src/config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const services = ['identity', 'catalog', 'media-processing', 'social', 'messaging', 'notification', 'billing'] as const;
const colors = [31, 32, 33, 34, 35, 36, 91, 92];
const gatewayPort = Number(process.env.PORT ?? 8080);

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
    ['PostgreSQL', process.env.DATABASE_HOST_URL ?? 'postgresql://127.0.0.1:5432', 5432],
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

function generateClientsIfMissing(): void {
  const missing = services.filter((s) => !existsSync(path.join(root, 'services', s, 'src/generated/prisma/client.ts')));
  if (missing.length === 0) return;
  console.log(`Generating Prisma clients (${missing.join(', ')})...`);
  const result = spawnSync('pnpm', ['run', 'generate'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const children: ChildProcess[] = [];

function start(name: string, cwd: string, color: number, env: NodeJS.ProcessEnv): void {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd,
    env: { NODE_ENV: 'development', ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `\x1b[${color}m${name.padEnd(16)}\x1b[0m│ `;
  const pipe = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let buffer = '';
    stream.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) out.write(prefix + line + '\n');
    });
  };
  pipe(child.stdout!, process.stdout);
  pipe(child.stderr!, process.stderr);
  child.on('exit', (code, signal) => {
    if (!shuttingDown) console.error(`${prefix}exited (${signal ?? code}); stopping the fleet`);
    void shutdown(1);
  });
  children.push(child);
}

let shuttingDown = false;
let s3: S3rver | null = null;
let stripe: StripeStandIn | null = null;

async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  // Exiting anyway: a stand-in that fails to close dies with the process.
  await s3?.close().catch(() => undefined);
  await stripe?.close().catch(() => undefined); // as above
  process.exit(code);
}

async function waitForHealth(timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !shuttingDown) {
    try {
      const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/health`);
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

await checkInfrastructure();
const shared: NodeJS.ProcessEnv = {};
if (!process.env.S3_ENDPOINT) {
  const directory = path.join(root, '.data/s3');
  mkdirSync(directory, { recursive: true });
  const port = Number(process.env.S3RVER_PORT ?? 4569);
  if (await answers(`http://127.0.0.1:${port}`, port)) {
    console.error(`Port ${port} (embedded object store) is taken: stop what runs there, or set S3RVER_PORT, or point S3_ENDPOINT at your S3 server.`);
    process.exit(1);
  }
  s3 = new S3rver({ port, address: '127.0.0.1', silent: true, directory });
  await s3.run();
  shared.S3_ENDPOINT = `http://127.0.0.1:${port}`;
  console.log(`Embedded object store (s3rver) on ${shared.S3_ENDPOINT}, data in .data/s3`);
}
if (!process.env.STRIPE_API_HOST) {
  if (await answers(`http://${DEV_STRIPE.host}:${DEV_STRIPE.port}`, DEV_STRIPE.port)) {
    console.error(`Port ${DEV_STRIPE.port} (Stripe stand-in) is taken: stop what runs there, or point STRIPE_API_HOST/PORT/PROTOCOL at your Stripe API.`);
    process.exit(1);
  }
  // Billing's development defaults (key, webhook secret, price) are the stand-in's.
  stripe = await startStripeStandIn({
    secretKey: process.env.STRIPE_SECRET_KEY ?? DEV_STRIPE.secretKey,
    webhookSecret: process.env.STRIPE_WEBHOOK_SECRET ?? DEV_STRIPE.webhookSecret,
    webhookUrl: `http://127.0.0.1:${gatewayPort}/api/webhook/stripe`,
    autoDeliver: true,
    host: DEV_STRIPE.host,
    port: DEV_STRIPE.port,
  });
  console.log(`Stripe stand-in on ${stripe.url} (webhooks to the gateway; \`pnpm --filter @msp/billing stripe:trigger <type> --user <id>\`)`);
}
generateClientsIfMissing();
services.forEach((s, i) => start(s, path.join(root, 'services', s), colors[i] ?? 37, shared));
start('gateway', path.join(root, 'gateway'), colors[7] ?? 37, shared);

if (await waitForHealth(120_000)) {
  console.log(`\n  Fleet is up: http://localhost:${gatewayPort}/api  (health: /api/health, docs: /api/docs)\n`);
} else if (!shuttingDown) {
  console.error('The fleet did not become healthy within 120 s; see the logs above.');
}

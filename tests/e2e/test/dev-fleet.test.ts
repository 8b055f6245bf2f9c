import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase } from '@msp/db';
import { dropRedisKeys, freePort, startNatsServer, testInfra, waitFor, type NatsServerHandle } from '@msp/testing';
import { signInAtStandIn } from './oidc-sign-in.js';

// The real `pnpm dev` runner (scripts/dev.ts) on ports, databases, NATS and Redis keys of its own:
// one boot, then a crashed service comes back by itself, and SIGTERM leaves no process and no port.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const SERVICES = ['identity', 'catalog', 'media-processing', 'social', 'messaging', 'notification', 'billing'] as const;

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Eight consecutive free ports (the gateway and the seven services), outside the test kit's range and the kernel's ephemeral one. */
async function freeBlock(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 32_000 + Math.floor(Math.random() * 700);
    let free = true;
    for (let i = 0; i < 8 && free; i++) free = await listenable(base + i);
    if (free) return base;
  }
  throw new Error('no block of 8 free ports in 32000–32707');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let runner: ChildProcess | null = null;
let output = '';
let nats: NatsServerHandle;
let s3Directory = '';
const dbPrefix = `t_devfleet_${randomBytes(4).toString('hex')}`;
const redisKeyPrefix = `devfleet-${randomBytes(4).toString('hex')}:`;
let gatewayPort = 0;
let ports: Record<string, number> = {};

/** The pid each process of the fleet was last started with, from the runner's "started (pid N)" lines. */
function pids(): Map<string, number> {
  const found = new Map<string, number>();
  // eslint-disable-next-line no-control-regex
  for (const m of output.matchAll(/\x1b\[\d+m([\w-]+)\s*\x1b\[0m│ started \(pid (\d+)\)/g)) found.set(m[1]!, Number(m[2]));
  return found;
}

/** The runner's last lines without colours, for a failure message. */
function tail(): string {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[\d+m/g, '');
  return plain.split('\n').slice(-40).join('\n');
}

async function health(): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${gatewayPort}/api/health`, { signal: AbortSignal.timeout(3000) })).status;
  } catch {
    return 0;
  }
}

beforeAll(async () => {
  nats = await startNatsServer();
  s3Directory = await mkdtemp(path.join(os.tmpdir(), 'devfleet-s3-'));
  gatewayPort = await freeBlock();
  ports = { s3: await freePort(), stripe: await freePort(), oidc: await freePort() };
  runner = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      PORT: String(gatewayPort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
      S3RVER_PORT: String(ports.s3),
      S3RVER_DIRECTORY: s3Directory,
      STRIPE_API_PORT: String(ports.stripe),
      OIDC_STAND_IN_PORT: String(ports.oidc),
      NATS_URL: nats.url,
      REDIS_URL: testInfra().redisUrl,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      DATABASE_HOST_URL: testInfra().postgresUrl,
      DEV_DATABASE_PREFIX: dbPrefix,
    },
  });
  runner.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  runner.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    () => {
      if (runner!.exitCode !== null) throw new Error(`pnpm dev exited (${runner!.exitCode}):\n${output.slice(-4000)}`);
      return output.includes('Fleet is up');
    },
    { timeoutMs: 170_000, intervalMs: 250, message: 'the fleet did not come up' },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; the runner's last lines:\n${tail()}`);
  });
}, 180_000);

afterAll(async () => {
  // Only when the test failed half-way: nothing of this fleet may outlive the file.
  if (runner && runner.exitCode === null && runner.signalCode === null) {
    for (const pid of pids().values()) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    runner.kill('SIGKILL');
  }
  await Promise.allSettled([
    nats?.close(),
    rm(s3Directory, { recursive: true, force: true }),
    dropRedisKeys(redisKeyPrefix),
    ...SERVICES.map((s) => dropDatabase(`${testInfra().postgresUrl}/${dbPrefix}_${s.replace(/-/g, '_')}`)),
  ]);
}, 60_000);

describe('pnpm dev supervises the fleet: restart after a crash, clean stop on SIGTERM', () => {
  it('AUTH-10 signs in at the Google stand-in; a killed service is back within 15 s; SIGTERM frees every port within 10 s, a hung process included', async () => {
    expect(await health()).toBe(200);

    // The development fleet's identity-provider login goes to the local stand-in, end to end.
    const start = await fetch(`http://127.0.0.1:${gatewayPort}/api/oauth2/authorization/google`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorize = start.headers.get('location')!;
    expect(authorize.startsWith(`http://127.0.0.1:${ports.oidc}/auth?`)).toBe(true);
    const { redirect } = await signInAtStandIn(authorize, { email: 'dev@example.com', name: 'Dev' });
    const back = await fetch(redirect, { redirect: 'manual' });
    const otc = new URL(back.headers.get('location')!).searchParams.get('code');
    expect(otc).toMatch(/^otc_/);
    const login = await fetch(`http://127.0.0.1:${gatewayPort}/api/auth/oauth/google`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ authTokenDto: otc }),
    });
    expect(login.status).toBe(200);

    // A crash: catalog dies without a chance to clean up.
    const catalogPid = pids().get('catalog')!;
    const killedAt = Date.now();
    process.kill(catalogPid, 'SIGKILL');
    await waitFor(async () => (await health()) !== 200, { timeoutMs: 10_000, intervalMs: 100, message: 'health never noticed catalog was gone' });
    // Polls the restarted catalog's own /ready (cheap), then the fleet's health (which asks all eight).
    const catalogReady = async () => {
      try {
        return (await fetch(`http://127.0.0.1:${gatewayPort + 2}/ready`, { signal: AbortSignal.timeout(2000) })).ok;
      } catch {
        return false;
      }
    };
    await waitFor(async () => (await catalogReady()) && (await health()) === 200, {
      timeoutMs: 15_000 - (Date.now() - killedAt),
      intervalMs: 250,
      message: 'not healthy again within 15 s',
    }).catch((err: unknown) => {
      throw new Error(`${String(err)}; the runner's last lines:\n${tail()}`);
    });
    const recoveredMs = Date.now() - killedAt;
    expect(recoveredMs).toBeLessThanOrEqual(15_000);
    expect(output).toMatch(/\x1b\[\d+mcatalog\s*\x1b\[0m│ exited \(SIGKILL\) after [\d.]+ s; restarting in 1 s \(restart 1\)/); // eslint-disable-line no-control-regex
    expect(pids().get('catalog')).not.toBe(catalogPid);
    console.log(`catalog killed → /api/health 200 again after ${recoveredMs} ms`);

    // SIGTERM: everything stops within 10 s, exit code 0, no process and no port left behind, even
    // with one process that cannot answer SIGTERM (stopped: it is killed after the grace period).
    const children = [...pids().values()];
    expect(children).toHaveLength(8);
    process.kill(pids().get('messaging')!, 'SIGSTOP');
    const stoppedAt = Date.now();
    const exited = new Promise<number | null>((resolve) => runner!.once('exit', (code) => resolve(code)));
    runner!.kill('SIGTERM');
    const code = await exited;
    const stopMs = Date.now() - stoppedAt;
    console.log(`SIGTERM → runner exited after ${stopMs} ms`);
    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(10_000);
    expect(children.filter(alive)).toEqual([]);
    expect(output).toContain('Still running after 6 s: messaging; killing them.');
    const fleetPorts = [...Array.from({ length: 8 }, (_, i) => gatewayPort + i), ports.s3!, ports.stripe!, ports.oidc!];
    const held: number[] = [];
    for (const port of fleetPorts) if (!(await listenable(port))) held.push(port);
    expect(held).toEqual([]);
  }, 90_000);
});

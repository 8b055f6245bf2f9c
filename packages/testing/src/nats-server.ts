import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { answers, freePort } from './ports.js';
import { waitFor } from './wait-for.js';

export interface NatsServerHandle {
  url: string;
  /** Kill the server (SIGKILL: no graceful flush), keeping its JetStream store. */
  stop(): Promise<void>;
  /** Start it again on the same port and store. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function natsBinary(): string {
  for (const candidate of [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  throw new Error('nats-server binary not found (set NATS_SERVER_BIN)');
}

/** A private nats-server with JetStream, for tests that restart the broker. */
export async function startNatsServer(): Promise<NatsServerHandle> {
  const port = await freePort();
  const storeDir = await mkdtemp(path.join(os.tmpdir(), 'nats-js-'));
  const bin = natsBinary();
  let child: ChildProcess | null = null;

  const start = async () => {
    child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    await waitFor(() => answers('127.0.0.1', port, 200), { timeoutMs: 10_000, message: 'nats-server did not start' });
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    start,
    stop,
    async close() {
      await stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

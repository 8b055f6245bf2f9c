/** The durable worker against a real PostgreSQL: wake on NOTIFY, the lost listener, the lag gauge (scheduling: unit/). */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { register } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, ensureDatabase } from '@msp/db';
import { testInfra, waitFor } from '@msp/testing';
import { DurableWorker, type BatchContext, type BatchOutcome, type DurableWorkerOptions } from '../src/index.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function recordingLogger() {
  const warnings: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  return {
    warnings,
    logger: { info() {}, debug() {}, error() {}, warn: (obj: object, msg?: string) => void warnings.push({ obj: obj as Record<string, unknown>, msg }) },
  };
}

let names = 0;
/** A worker with a name of its own (metrics are labelled by it) and every run's start time. */
function worker(batch: (ctx: BatchContext, run: number) => Promise<BatchOutcome | void>, options: Partial<DurableWorkerOptions> = {}) {
  const starts: number[] = [];
  const { warnings, logger } = recordingLogger();
  let active = 0;
  let maxActive = 0;
  const w = new DurableWorker({
    name: `test-worker-${(names += 1)}`,
    logger,
    pollMs: 1000,
    batch: async (ctx) => {
      starts.push(Date.now());
      active += 1;
      maxActive = Math.max(maxActive, active);
      try {
        return await batch(ctx, starts.length);
      } finally {
        active -= 1;
      }
    },
    ...options,
  });
  return { w, starts, warnings, maxActive: () => maxActive };
}

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const values = (await register.getSingleMetric(name)!.get()).values;
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
}

describe('DurableWorker: wake on PostgreSQL NOTIFY, lag gauge', () => {
  let dbUrl: string;
  let pool: pg.Pool;

  beforeAll(async () => {
    dbUrl = `${testInfra().postgresUrl}/t_worker_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(dbUrl);
    pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
  });

  afterAll(async () => {
    await pool?.end();
    if (dbUrl) await dropDatabase(dbUrl);
  });

  it('runs on a NOTIFY of its channel, and again after its listening connection was lost and came back', async () => {
    const { w, starts, warnings } = worker(async () => undefined, {
      pollMs: 60_000,
      notify: { databaseUrl: dbUrl, channel: 'durable_worker_test' },
      lag: async () => 42,
    });
    await w.start();
    await waitFor(() => starts.length === 1, { message: 'no first run' });
    await pool.query(`NOTIFY durable_worker_test`);
    await waitFor(() => starts.length === 2, { message: 'NOTIFY did not wake the worker' });
    expect(await metric('durable_worker_lag_seconds', { worker: w.name })).toBe(42);

    // The listening connection dies: polling goes on, the connection comes back within a second or
    // so, and the worker looks once for what it may have missed.
    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN durable_worker_test'`);
    await waitFor(() => starts.length === 3, { message: 'no run after the listener came back' });
    expect(warnings.map((l) => l.msg)).toContain('notify listener lost; polling until it reconnects');
    await pool.query(`NOTIFY durable_worker_test`);
    await waitFor(() => starts.length === 4, { message: 'NOTIFY did not wake the worker after the reconnect' });

    await w.stop();
    await pool.query(`NOTIFY durable_worker_test`);
    await sleep(200);
    expect(starts).toHaveLength(4);
    // Stopped: no longer listening, and no longer in the lag gauge.
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN durable_worker_test' AND state = 'idle'`,
    );
    expect(rows[0].n).toBe(0);
    expect(await metric('durable_worker_lag_seconds', { worker: w.name })).toBe(0);
  });

  it('does not run before start() nor after stop(), whatever wakes it', async () => {
    const { w, starts } = worker(async () => undefined, { pollMs: 60_000 });
    w.wake();
    await sleep(50);
    expect(starts).toHaveLength(0);
    await w.start();
    await waitFor(() => starts.length === 1);
    await w.stop();
    await w.stop(); // idempotent
    w.wake();
    await w.start(); // a stopped worker does not start again
    await sleep(50);
    expect(starts).toHaveLength(1);
  });
});

/** The durable worker's scheduling on a fake clock: no database (see ../durable-worker.test.ts for NOTIFY). */
import { register } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  backoffDelayMs,
  DurableWorker,
  WorkerStoppedError,
  type BatchContext,
  type BatchOutcome,
  type DurableWorkerOptions,
} from '../../src/durable-worker.js';

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

describe('DurableWorker: wake, poll, no overlap (fake clock)', () => {
  let t0: number;
  beforeEach(() => {
    vi.useFakeTimers();
    t0 = Date.now();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at start, then pollMs after the previous run ended', async () => {
    const { w, starts } = worker(() => sleep(300));
    await w.start();
    await vi.advanceTimersByTimeAsync(2700);
    expect(starts.map((s) => s - t0)).toEqual([0, 1300, 2600]);
    const stopping = w.stop();
    await vi.advanceTimersByTimeAsync(300);
    await stopping;
  });

  it('runs at once on wake(); a wake-up during a run gives one more run right after it, never two at once', async () => {
    const { w, starts, maxActive } = worker(() => sleep(100), { pollMs: 60_000 });
    await w.start();
    await vi.advanceTimersByTimeAsync(500);
    w.wake();
    await vi.advanceTimersByTimeAsync(10);
    for (let i = 0; i < 5; i += 1) w.wake(); // all during the run that started at 500
    await vi.advanceTimersByTimeAsync(1000);
    const [first, woken, again] = starts.map((s) => s - t0);
    expect([first, woken]).toEqual([0, 500]);
    expect(again).toBeGreaterThanOrEqual(600);
    expect(again).toBeLessThanOrEqual(602); // right after the run that ended at 600, not at the poll
    expect(maxActive()).toBe(1);
    await w.stop();
  });

  it('calls batch again at once while it reports more, counting runs and items by worker', async () => {
    const { w, starts } = worker(async (_ctx, run) => ({ done: 2, failed: run === 1 ? 1 : 0, more: run < 3 }));
    await w.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(starts).toHaveLength(3);
    expect(await metric('durable_worker_runs_total', { worker: w.name })).toBe(3);
    expect(await metric('durable_worker_items_total', { worker: w.name, outcome: 'done' })).toBe(6);
    expect(await metric('durable_worker_items_total', { worker: w.name, outcome: 'failed' })).toBe(1);
    expect(await metric('durable_worker_batch_duration_seconds', { worker: w.name })).toBeGreaterThanOrEqual(0);
    await w.stop();
  });

  it('delays the first run by firstRunMs (a periodic chore)', async () => {
    const { w, starts } = worker(async () => undefined, { pollMs: 5000, firstRunMs: 5000 });
    await w.start();
    await vi.advanceTimersByTimeAsync(10_100);
    expect(starts.map((s) => s - t0)).toEqual([5000, 10_000]);
    await w.stop();
  });

  it('retries a failed run at the next poll when no backoff is set, and logs it with the worker name', async () => {
    const { w, starts, warnings } = worker(async (_ctx, run) => {
      if (run <= 2) throw new Error('database down');
    });
    await w.start();
    await vi.advanceTimersByTimeAsync(2100);
    expect(starts.map((s) => s - t0)).toEqual([0, 1000, 2000]);
    expect(warnings.map((l) => l.obj)).toMatchObject([
      { worker: w.name, failures: 1, retryInMs: 1000 },
      { worker: w.name, failures: 2, retryInMs: 1000 },
    ]);
    expect(await metric('durable_worker_failures_total', { worker: w.name, stage: 'batch' })).toBe(2);
    await w.stop();
  });

  it('backs off exponentially after failures, capped, resets after a success, and still runs at once on wake()', async () => {
    let failing = true;
    const { w, starts } = worker(
      async () => {
        if (failing) throw new Error('broker down');
      },
      { pollMs: 10_000, backoff: { baseMs: 100, maxMs: 400, jitter: 0 } },
    );
    await w.start();
    await vi.advanceTimersByTimeAsync(1200);
    // Failures at 0, 100, 300, 700 (capped at 400 from the third on), 1100.
    expect(starts.map((s) => s - t0)).toEqual([0, 100, 300, 700, 1100]);
    w.wake();
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(6);
    failing = false;
    await vi.advanceTimersByTimeAsync(400);
    expect(starts).toHaveLength(7); // the backoff's run succeeded
    await vi.advanceTimersByTimeAsync(9000);
    expect(starts).toHaveLength(7); // back to pollMs
    await vi.advanceTimersByTimeAsync(1100);
    expect(starts).toHaveLength(8);
    await w.stop();
  });

  it('stop() waits for the batch in hand and runs nothing after it', async () => {
    let finished = false;
    const { w, starts } = worker(async (ctx) => {
      await sleep(500);
      finished = true;
      return { more: !ctx.stopping };
    });
    await w.start();
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    w.wake();
    await vi.advanceTimersByTimeAsync(400);
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(starts).toHaveLength(1);
    expect(w.isStopping).toBe(true);
  });

  it('stop() gives up after stopTimeoutMs: aborts ctx.signal and resolves', async () => {
    let reason: unknown;
    const { w, warnings } = worker(
      (ctx) =>
        new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            resolve();
          });
        }),
      { stopTimeoutMs: 2000 },
    );
    await w.start();
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(1900);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await stopping;
    expect(reason).toBeInstanceOf(WorkerStoppedError);
    expect(warnings.map((l) => l.msg)).toContain('worker stop gave up waiting for its batch');
  });

  it('beats every everyMs while started and while stop() waits for the batch, never two beats at once, and not after', async () => {
    let beats = 0;
    let beating = 0;
    let overlap = false;
    const { w } = worker(() => sleep(5500), {
      pollMs: 60_000,
      heartbeat: {
        everyMs: 1000,
        beat: async () => {
          beats += 1;
          if ((beating += 1) > 1) overlap = true;
          await sleep(1500); // longer than the period: the tick during a beat is skipped
          beating -= 1;
        },
      },
    });
    await w.start();
    await vi.advanceTimersByTimeAsync(2100);
    expect(beats).toBe(1); // at 1000; the tick at 2000 came during it
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(4000);
    // Beats at 3000 and 5000 while stop() waited for the batch (it ends at 5500); stop() then waits
    // for the beat in hand (it ends at 6500).
    expect(beats).toBe(3);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    await stopping;
    await vi.advanceTimersByTimeAsync(5000);
    expect(beats).toBe(3);
    expect(overlap).toBe(false);
  });
});

describe('DurableWorker backoff delay', () => {
  it('doubles from baseMs up to maxMs and shortens by at most the jitter fraction', () => {
    const backoff = { baseMs: 1000, maxMs: 30_000, jitter: 0.25 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, backoff, () => 0))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(backoffDelayMs(3, backoff, () => 1)).toBe(3000);
    expect(backoffDelayMs(3, { baseMs: 1000, maxMs: 30_000 }, () => 1)).toBe(3200);
  });
});

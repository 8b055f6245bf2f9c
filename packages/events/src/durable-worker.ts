import pg from 'pg';
import { Counter, Gauge, Histogram } from 'prom-client';
import { pgStatement, raw, sql } from '@msp/db';

/** A NOTIFY channel is an identifier named in code; anything else is refused before it reaches SQL. */
function channelName(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid notify channel "${channel}"`);
  return channel;
}

/** The logger a worker is given (pino's and Fastify's `app.log` fit). */
export interface WorkerLogger {
  debug?(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What one call of `batch` did. */
export interface BatchOutcome {
  /** Items finished (durable_worker_items_total{outcome="done"}). */
  done?: number;
  /** Items that failed and were left to the caller's own retry rules (outcome="failed"). */
  failed?: number;
  /** More work may be due now: `batch` is called again at once instead of at the next poll. */
  more?: boolean;
}

/** Handed to every `batch` call. */
export interface BatchContext {
  /** True once `stop()` was called: finish what is in hand, claim nothing more. */
  readonly stopping: boolean;
  /**
   * Aborted when `stop()` stops waiting for the batch in hand (`stopTimeoutMs`): leave what is not
   * done to a later claim (its lease expires, or its transaction rolls back).
   */
  readonly signal: AbortSignal;
}

export interface DurableWorkerOptions {
  /** Label of the worker's metrics and logs, e.g. `outbox-relay`. */
  name: string;
  logger: WorkerLogger;
  /**
   * Claims and handles one batch of the stored work (`FOR UPDATE SKIP LOCKED`, a lease column,
   * ...). A throw is a failed run: logged, counted, and retried after the poll interval (or the
   * backoff).
   */
  batch(ctx: BatchContext): Promise<BatchOutcome | void>;
  /** Wait after a run that left nothing due (and after a failed one without `backoff`). */
  pollMs: number;
  /** Delay of the first run after `start()`: 0 (default) runs at once; a periodic chore passes its period. */
  firstRunMs?: number;
  /**
   * Wake on PostgreSQL NOTIFY: a connection LISTENs on `channel` and every notification wakes the
   * worker. A lost connection is opened again every second (polling meanwhile), then the worker
   * runs once, for the notifications it missed.
   */
  notify?: { databaseUrl: string; channel: string };
  /**
   * After a failed run, wait `baseMs * 2^(failures - 1)`, capped at `maxMs`, shortened by up to
   * `jitter` (a fraction, default 0.2) at random, instead of `pollMs`. A successful run resets it;
   * a `wake()` still runs at once. Without it a failed run is retried at the next poll.
   */
  backoff?: { baseMs: number; maxMs: number; jitter?: number };
  /**
   * Called every `everyMs` from `start()` until `stop()` has finished or given up the batch in
   * hand, never twice at once: renews the leases of what this process holds (one statement for
   * all of them). A throw is logged and counted; the next beat comes on time.
   */
  heartbeat?: { everyMs: number; beat(): Promise<void> };
  /** How long `stop()` waits for the batch in hand before it aborts `ctx.signal` and resolves. Default 10 s. */
  stopTimeoutMs?: number;
  /** Age in seconds of the oldest due item, read at scrape time (durable_worker_lag_seconds). */
  lag?: () => Promise<number>;
}

const DEFAULT_STOP_TIMEOUT_MS = 10_000;
const RELISTEN_MS = 1000;
const LAG_READ_TIMEOUT_MS = 1500;

// prom-client's default registry, which every service exposes at /metrics.
const workerMetrics = {
  runs: new Counter({ name: 'durable_worker_runs_total', help: 'Batches a durable worker ran', labelNames: ['worker'] }),
  items: new Counter({
    name: 'durable_worker_items_total',
    help: 'Items a durable worker handled, by outcome (done, failed)',
    labelNames: ['worker', 'outcome'],
  }),
  failures: new Counter({
    name: 'durable_worker_failures_total',
    help: 'Failed batches and heartbeats of a durable worker, by stage (batch, heartbeat)',
    labelNames: ['worker', 'stage'],
  }),
  duration: new Histogram({
    name: 'durable_worker_batch_duration_seconds',
    help: 'Wall time of one batch of a durable worker',
    labelNames: ['worker'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  }),
};

const lagSources = new Map<DurableWorker, { worker: string; read: () => Promise<number> }>();

new Gauge({
  name: 'durable_worker_lag_seconds',
  help: 'Age of the oldest item due to a durable worker, as the worker reports it (0 when none)',
  labelNames: ['worker'],
  async collect() {
    const readings = await Promise.all(
      [...lagSources.values()].map(async ({ worker, read }) => {
        try {
          return { worker, seconds: await withTimeout(read(), LAG_READ_TIMEOUT_MS) };
        } catch {
          // Unknown (database unreachable): no figure rather than a wrong one.
          return { worker, seconds: undefined };
        }
      }),
    );
    this.reset();
    const byWorker = new Map<string, number>();
    for (const { worker, seconds } of readings) if (seconds !== undefined) byWorker.set(worker, Math.max(seconds, byWorker.get(worker) ?? 0));
    for (const [worker, seconds] of byWorker) this.set({ worker }, seconds);
  },
});

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves true when `promise` settles within `ms`, false when the time ran out first. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  try {
    await withTimeout(
      promise.then(
        () => true,
        () => true,
      ),
      ms,
    );
    return true;
  } catch {
    // withTimeout only rejects when the time ran out (the promise's own failure is mapped to true).
    return false;
  }
}

/** The delay before the run after the `failures`-th failure in a row. */
export function backoffDelayMs(failures: number, backoff: { baseMs: number; maxMs: number; jitter?: number }, random = Math.random): number {
  const raw = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, failures - 1));
  const jitter = Math.min(1, Math.max(0, backoff.jitter ?? 0.2));
  return Math.round(raw * (1 - jitter * random()));
}

/** Thrown into `ctx.signal` when `stop()` gives up waiting for the batch in hand. */
export class WorkerStoppedError extends Error {
  constructor(worker: string) {
    super(`${worker} stopped before its batch finished`);
    this.name = 'WorkerStoppedError';
  }
}

/**
 * One way to run "work stored in the database, done by a loop": a run starts at `start()`, after
 * `pollMs` of quiet, at once after `wake()` (an in-process signal after a commit) or a NOTIFY on
 * the `notify` channel; it calls `batch` until the batch says there is no more. Never two runs at
 * once in one process: a wake-up during a run is remembered and runs right after it. Claiming is
 * the caller's (`FOR UPDATE SKIP LOCKED`, a lease column), so replicas share the work safely.
 * `stop()` claims nothing more, waits for the batch in hand at most `stopTimeoutMs` (then aborts
 * `ctx.signal`) and resolves. Timers never keep the process alive.
 */
export class DurableWorker {
  private state: 'new' | 'started' | 'stopping' | 'stopped' = 'new';
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private again = false;
  private nextDelayMs: number;
  private failures = 0;
  private stopping: Promise<void> | null = null;
  private readonly controller = new AbortController();
  private readonly context: BatchContext;
  private listener: pg.Client | null = null;
  private listenerLost = false;
  private relisten: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(private readonly options: DurableWorkerOptions) {
    if (options.notify && !/^[a-z_][a-z0-9_]*$/i.test(options.notify.channel)) throw new Error(`not a channel name: ${options.notify.channel}`);
    this.nextDelayMs = options.pollMs;
    const stopping = () => this.state !== 'started';
    this.context = {
      get stopping() {
        return stopping();
      },
      signal: this.controller.signal,
    };
  }

  get name(): string {
    return this.options.name;
  }

  /** True from `stop()` on. */
  get isStopping(): boolean {
    return this.state === 'stopping' || this.state === 'stopped';
  }

  /** Starts the loop; with `notify`, resolves once the first LISTEN was tried (it never rejects). */
  async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'started';
    const { lag, heartbeat } = this.options;
    if (lag) lagSources.set(this, { worker: this.options.name, read: lag });
    if (heartbeat) {
      this.heartbeatTimer = setInterval(() => this.beat(heartbeat.beat), heartbeat.everyMs);
      this.heartbeatTimer.unref();
    }
    if (this.options.notify) await this.listen(this.options.notify);
    this.schedule(this.options.firstRunMs ?? 0);
  }

  /** Work may be due now: run at once, or right after the run in progress. */
  wake(): void {
    if (this.state !== 'started') return;
    if (this.current) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** Claims nothing more; waits for the batch in hand at most `stopTimeoutMs`. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.state = 'stopping';
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.relisten) clearTimeout(this.relisten);
    this.relisten = null;
    const deadline = Date.now() + (this.options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);
    if (this.current && !(await settlesWithin(this.current, deadline - Date.now()))) {
      const reason = new WorkerStoppedError(this.options.name);
      this.options.logger.warn(
        { worker: this.options.name, waitedMs: this.options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS },
        'worker stop gave up waiting for its batch',
      );
      this.controller.abort(reason);
    }
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    if (this.beating) await settlesWithin(this.beating, Math.max(0, deadline - Date.now()));
    lagSources.delete(this);
    const listener = this.listener;
    this.listener = null;
    // Stopping: a connection that fails to close is gone either way.
    await listener?.end().catch(() => undefined);
    this.state = 'stopped';
  }

  private schedule(delayMs: number): void {
    if (this.state !== 'started') return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.current) {
        this.again = true;
        return;
      }
      this.current = this.run().finally(() => {
        this.current = null;
        const next = this.again ? 0 : this.nextDelayMs;
        this.again = false;
        this.schedule(next);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** Batches until one says there is no more, the worker stops, or a batch fails. Never rejects. */
  private async run(): Promise<void> {
    const worker = this.options.name;
    while (this.state === 'started') {
      workerMetrics.runs.inc({ worker });
      const endTimer = workerMetrics.duration.startTimer({ worker });
      let outcome: BatchOutcome;
      try {
        outcome = (await this.options.batch(this.context)) ?? {};
      } catch (err) {
        endTimer();
        this.failures += 1;
        workerMetrics.failures.inc({ worker, stage: 'batch' });
        this.nextDelayMs = this.options.backoff ? backoffDelayMs(this.failures, this.options.backoff) : this.options.pollMs;
        this.options.logger.warn({ err, worker, failures: this.failures, retryInMs: this.nextDelayMs }, 'worker batch failed; will retry');
        return;
      }
      endTimer();
      this.failures = 0;
      this.nextDelayMs = this.options.pollMs;
      if (outcome.done) workerMetrics.items.inc({ worker, outcome: 'done' }, outcome.done);
      if (outcome.failed) workerMetrics.items.inc({ worker, outcome: 'failed' }, outcome.failed);
      if (!outcome.more) return;
    }
  }

  private beat(beat: () => Promise<void>): void {
    if (this.beating) return;
    const worker = this.options.name;
    this.beating = beat()
      .catch((err: unknown) => {
        workerMetrics.failures.inc({ worker, stage: 'heartbeat' });
        this.options.logger.warn({ err, worker }, 'worker heartbeat failed; retrying at the next beat');
      })
      .finally(() => {
        this.beating = null;
      });
  }

  private async listen(notify: { databaseUrl: string; channel: string }): Promise<void> {
    const worker = this.options.name;
    const client = new pg.Client({ connectionString: notify.databaseUrl });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      // Errors while connecting reject connect() below, which handles them.
      if (this.listener !== client) return;
      this.listener = null;
      this.listenerLost = true;
      this.options.logger.warn({ err, worker, channel: notify.channel }, 'notify listener lost; polling until it reconnects');
      // The connection is broken already; closing it can only fail the same way.
      void client.end().catch(() => undefined);
      this.listenLater(notify);
    });
    try {
      await client.connect();
      await client.query(pgStatement(sql`LISTEN ${raw(channelName(notify.channel))}`));
    } catch (err) {
      this.listenerLost = true;
      this.options.logger.warn({ err, worker, channel: notify.channel }, 'notify listener could not connect; polling');
      // The client never connected; closing it can only fail the same way.
      await client.end().catch(() => undefined);
      this.listenLater(notify);
      return;
    }
    if (this.state !== 'started') {
      // Stopped while connecting.
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    if (this.listenerLost) {
      this.listenerLost = false;
      // Notifications sent while no connection listened are lost: look once.
      this.wake();
    }
  }

  private listenLater(notify: { databaseUrl: string; channel: string }): void {
    if (this.state !== 'started') return;
    this.relisten = setTimeout(() => {
      this.relisten = null;
      // listen() handles its own failures; this only keeps an unexpected rejection from escaping.
      void this.listen(notify).catch((err: unknown) => this.options.logger.warn({ err, worker: this.options.name }, 'notify listener failed'));
    }, RELISTEN_MS);
    this.relisten.unref();
  }
}

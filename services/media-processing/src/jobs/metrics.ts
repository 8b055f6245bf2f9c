import { Counter, Gauge, Histogram } from 'prom-client';

/** Operator metrics of the media worker (prom-client's default registry, served at /metrics). */
export const jobMetrics = {
  duration: new Histogram({
    name: 'media_job_duration_seconds',
    help: 'Wall time of one processing run, by outcome (succeeded, failed, interrupted)',
    labelNames: ['outcome'],
    buckets: [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800],
  }),
  /** A measurement the run could not make (the track still finishes, with that field null). */
  measurementFailures: new Counter({
    name: 'media_measurement_failures_total',
    help: 'Measurements of a processing run that failed (the track finished without them), by measurement',
    labelNames: ['measurement'],
  }),
};

/** What the gauges read at scrape time (JobsRepository). */
export interface QueueSource {
  queueDepth(): Promise<{ queued: number; delayed: number; running: number }>;
  oldestDueAgeSeconds(): Promise<number>;
}

let source: QueueSource | undefined;

/**
 * The job queue as the database sees it at scrape time: jobs due now (`queued`), waiting for a retry
 * (`delayed`) and running, and the age of the oldest due job. Works across replicas (one table).
 */
export function observeJobQueue(db: QueueSource | undefined): void {
  source = db;
}

new Gauge({
  name: 'media_jobs',
  help: 'Processing jobs by state: queued (due now), delayed (waiting for a retry), running',
  labelNames: ['state'],
  async collect() {
    if (!source) return;
    // A failed read leaves the last figures: a scrape must not fail because the database blinked.
    const row = await source.queueDepth().catch(() => null);
    if (!row) return;
    this.set({ state: 'queued' }, row.queued);
    this.set({ state: 'delayed' }, row.delayed);
    this.set({ state: 'running' }, row.running);
  },
});

new Gauge({
  name: 'media_job_queue_oldest_seconds',
  help: 'Age of the oldest job that is due and not running (0 when none)',
  async collect() {
    if (!source) return;
    // A failed read leaves the last figure: a scrape must not fail because the database blinked.
    const age = await source.oldestDueAgeSeconds().catch(() => null);
    if (age !== null) this.set(age);
  },
});

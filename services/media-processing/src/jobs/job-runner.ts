import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { runWithRequestContext } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { withSpan } from '@msp/telemetry';
import { jobMetrics } from './metrics.js';
import type { FingerprintStep } from '../fingerprint/fingerprint.service.js';
import type { MediaBinaries } from '../media/ffmpeg.js';
import { processUpload, UndecodableMediaError, type PipelineContext } from '../media/pipeline.js';
import type { ClaimedJob, JobsRepository } from './jobs.repository.js';

export interface JobRunnerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Who claims: see WorkerIdentity (the identity survives restarts, the generation does not). */
export interface RunnerIdentity {
  readonly id: string;
  readonly generation: string;
  /** True while this process holds the identity: it may take back jobs of the identity's earlier generations. */
  readonly owned: boolean;
  /** File-name-safe key of the id. */
  readonly key: string;
}

export interface JobRunnerOptions {
  jobs: JobsRepository;
  identity: RunnerIdentity;
  binaries: MediaBinaries;
  storageFor: (bucket: string) => ObjectStorage;
  logger: JobRunnerLogger;
  concurrency: number;
  /** Lease of a claim (JOB_LEASE_MS): a worker that stops renewing loses its jobs after it. */
  leaseMs: number;
  /** Period of the heartbeat that renews the leases of the running jobs (JOB_HEARTBEAT_MS). */
  heartbeatMs: number;
  maxRuns: number;
  pollMs: number;
  /** Scratch files go to `<scratchRoot>/msp-media-<identity key>/`, emptied when the identity is taken. */
  scratchRoot: string;
  /** Longest audio the pipeline transcodes (AUDIO_MAX_DURATION_SECONDS). */
  maxDurationSeconds: number;
  /** Wall time of one run; past it the job ends FAILED (JOB_MAX_MS), it is not retried. */
  jobMaxMs: number;
  /** Fingerprints each run's original and looks it up among the other tracks (docs/fingerprints.md). */
  fingerprint?: FingerprintStep;
}

class JobTimeLimitError extends Error {
  constructor(ms: number) {
    super(`processing took longer than ${Math.round(ms / 1000)} s`);
    this.name = 'JobTimeLimitError';
  }
}

/** Delays before a transient failure runs again, by run number. */
const RETRY_DELAYS_MS = [2000, 10_000, 30_000];

class LeaseLostError extends Error {
  constructor() {
    super('lease lost: another worker runs the job');
    this.name = 'LeaseLostError';
  }
}

const FAILED_MESSAGES = {
  undecodable: 'Processing failed: the file could not be decoded as audio.',
  exhausted: 'Processing failed: the media worker could not finish the job.',
} as const;

/**
 * Runs processing jobs outside any database transaction (a transcode takes far longer than a
 * transaction should stay open). A job is claimed with a lease leased to this worker's identity
 * and generation under a new token (`FOR UPDATE SKIP LOCKED`, so replicas never share one); one
 * heartbeat per process renews the leases of all its running jobs. A worker that dies stops
 * renewing: another one takes its jobs when the lease expires, and its own restart takes them back
 * at once (same identity, earlier generation). The next run starts from scratch and overwrites the
 * same keys; a run that lost its lease is aborted at the next heartbeat and can no longer report.
 * Runs are counted; after `maxRuns` the job ends FAILED and catalog is told, so a track never
 * stays PROCESSING. Graceful stop aborts running jobs (kills ffmpeg) and hands them back at once
 * without counting the interrupted run.
 */
export class JobRunner {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly active = new Map<string, { token: string; controller: AbortController; done: Promise<void> }>();
  private wakeUp: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private beating = false;
  readonly scratchDir: string;

  constructor(private readonly options: JobRunnerOptions) {
    this.scratchDir = path.join(options.scratchRoot, `msp-media-${options.identity.key}`);
  }

  start(): void {
    this.heartbeat = setInterval(() => void this.beat(), this.options.heartbeatMs);
    this.loop = this.prepareScratch().then(() => this.run());
  }

  /**
   * The identity's scratch folder. When this process holds the identity, files left there by a
   * killed earlier boot are removed (nothing else writes there); otherwise they stay.
   */
  private async prepareScratch(): Promise<void> {
    try {
      if (this.options.identity.owned) await rm(this.scratchDir, { recursive: true, force: true });
      await mkdir(this.scratchDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      this.options.logger.warn({ err, scratchDir: this.scratchDir }, 'could not prepare the scratch folder');
    }
  }

  /** One statement renews the leases of every running job; a job whose lease was taken is aborted. */
  private async beat(): Promise<void> {
    if (this.beating || this.active.size === 0) return;
    this.beating = true;
    const runs = [...this.active.values()];
    try {
      const held = await this.options.jobs.renewLeases(
        runs.map((r) => r.token),
        this.options.leaseMs,
      );
      for (const run of runs) if (!held.has(run.token) && !run.controller.signal.aborted) run.controller.abort(new LeaseLostError());
    } catch (err) {
      this.options.logger.warn({ err, jobs: runs.length }, 'lease renewal failed; retrying at the next heartbeat');
    } finally {
      this.beating = false;
    }
  }

  /** New work may be due (an upload event was recorded): look now instead of at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Jobs running in this process (tests and the benchmark watch it). */
  get running(): number {
    return this.active.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop; // no claim after this point
    for (const { controller } of this.active.values()) controller.abort(new Error('worker stopping'));
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        while (!this.stopped && this.active.size < this.options.concurrency) {
          const job = await this.claim();
          if (!job) break;
          if (this.stopped) {
            // Claimed while stopping: hand it straight back.
            await this.release(job);
            break;
          }
          const controller = new AbortController();
          const done = this.execute(job, controller).finally(() => {
            this.active.delete(job.id);
            this.wake();
          });
          this.active.set(job.id, { token: job.lease_token, controller, done });
        }
      } catch (err) {
        if (!this.stopped) this.options.logger.warn({ err }, 'claiming a job failed; retrying');
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  private claim(): Promise<ClaimedJob | null> {
    const { identity } = this.options;
    return this.options.jobs.claim(this.options.leaseMs, { id: identity.id, generation: identity.generation, reclaim: identity.owned });
  }

  /** One run, in the upload's request context and trace (its logs and events can be followed). */
  private execute(job: ClaimedJob, controller: AbortController): Promise<void> {
    return runWithRequestContext({ requestId: job.correlation_id ?? job.upload_id }, () =>
      withSpan('media-processing job', { carrier: job, attributes: { 'msp.job.id': job.id, 'msp.track.id': job.track_id, 'msp.job.run': job.runs } }, () =>
        this.executeRun(job, controller),
      ),
    );
  }

  private async executeRun(job: ClaimedJob, controller: AbortController): Promise<void> {
    const { logger, maxRuns } = this.options;
    if (job.runs > maxRuns) {
      await this.fail(job, FAILED_MESSAGES.exhausted, `gave up after ${maxRuns} runs`);
      return;
    }
    if (job.runs > 1)
      logger.info({ jobId: job.id, trackId: job.track_id, run: job.runs, workerId: this.options.identity.id }, 'running an interrupted job again');
    const started = Date.now();
    const timeLimit = setTimeout(() => controller.abort(new JobTimeLimitError(this.options.jobMaxMs)), this.options.jobMaxMs);
    try {
      const output = await processUpload(
        {
          trackId: job.track_id,
          uploadId: job.upload_id,
          attempt: job.attempt,
          originalKey: job.original_key,
          coverKey: job.cover_key,
          publicId: job.public_id,
        },
        {
          binaries: this.options.binaries,
          storage: this.options.storageFor(job.bucket),
          scratchRoot: this.scratchDir,
          maxDurationSeconds: this.options.maxDurationSeconds,
          fingerprint: this.fingerprintFor(job, controller.signal),
          signal: controller.signal,
          logger,
          progress: (stepName, progress) => this.progress(job, stepName, progress, controller.signal),
        },
      );
      if (!(await this.succeed(job, output))) throw new LeaseLostError();
      jobMetrics.duration.observe({ outcome: 'succeeded' }, (Date.now() - started) / 1000);
      logger.info({ jobId: job.id, trackId: job.track_id, ms: Date.now() - started, durationSeconds: output.durationSeconds }, 'job finished');
    } catch (err) {
      // Whatever happens here, the job row stays consistent: at worst its lease expires and it runs again.
      const leaseLost = err instanceof LeaseLostError || controller.signal.reason instanceof LeaseLostError;
      const settle = async () => {
        if (controller.signal.reason instanceof JobTimeLimitError) {
          await this.fail(job, FAILED_MESSAGES.undecodable, controller.signal.reason.message);
        } else if (leaseLost) {
          logger.warn({ jobId: job.id, run: job.runs }, 'lease lost: another worker runs the job; this run stops without reporting');
        } else if (controller.signal.aborted) {
          if (this.stopped) await this.release(job);
          logger.warn({ jobId: job.id, reason: String(controller.signal.reason) }, 'job interrupted; it will run again');
        } else if (err instanceof UndecodableMediaError) {
          await this.fail(job, FAILED_MESSAGES.undecodable, err.message);
        } else if (job.runs >= maxRuns) {
          await this.fail(job, FAILED_MESSAGES.exhausted, String((err as Error)?.message ?? err));
        } else {
          logger.warn({ err, jobId: job.id, run: job.runs }, 'job run failed; retrying later');
          await this.retryLater(job, String((err as Error)?.message ?? err));
        }
      };
      jobMetrics.duration.observe(
        { outcome: leaseLost || (controller.signal.aborted && !(controller.signal.reason instanceof JobTimeLimitError)) ? 'interrupted' : 'failed' },
        (Date.now() - started) / 1000,
      );
      await settle().catch((e: unknown) => logger.error({ err: e, jobId: job.id }, 'could not record the job outcome'));
    } finally {
      clearTimeout(timeLimit);
    }
  }

  private async progress(job: ClaimedJob, stepName: string, progress: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (!(await this.options.jobs.progress(job, stepName, progress))) throw new LeaseLostError();
  }

  /** The run's fingerprint step; it only throws when the run is aborted. */
  private fingerprintFor(job: ClaimedJob, signal: AbortSignal): PipelineContext['fingerprint'] {
    const step = this.options.fingerprint;
    if (!step) return undefined;
    return async (file, durationSeconds, computed) => {
      await step.run({ trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, file, durationSeconds, computed }, signal);
    };
  }

  private succeed(job: ClaimedJob, output: Parameters<JobsRepository['succeed']>[1]): Promise<boolean> {
    return this.options.jobs.succeed(job, output);
  }

  private async fail(job: ClaimedJob, errorMessage: string, detail: string): Promise<void> {
    this.options.logger.warn({ jobId: job.id, trackId: job.track_id, detail }, 'job failed');
    await this.options.jobs.fail(job, errorMessage, detail);
  }

  private retryLater(job: ClaimedJob, detail: string): Promise<void> {
    const delay = RETRY_DELAYS_MS[Math.min(job.runs - 1, RETRY_DELAYS_MS.length - 1)] ?? 30_000;
    return this.options.jobs.retryLater(job, detail, delay);
  }

  /** Shutdown: the interrupted run does not count, and the job is due at once for the next worker. */
  private release(job: ClaimedJob): Promise<void> {
    return this.options.jobs.release(job);
  }
}

import { runWithRequestContext } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { withSpan } from '@msp/telemetry';
import { jobMetrics } from './metrics.js';
import type { MediaBinaries } from '../media/ffmpeg.js';
import { processUpload, UndecodableMediaError } from '../media/pipeline.js';
import type { ClaimedJob, JobsRepository } from './jobs.repository.js';

export interface JobRunnerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobRunnerOptions {
  jobs: JobsRepository;
  binaries: MediaBinaries;
  storageFor: (bucket: string) => ObjectStorage;
  logger: JobRunnerLogger;
  concurrency: number;
  leaseMs: number;
  maxRuns: number;
  pollMs: number;
  scratchRoot: string;
  /** Longest audio the pipeline transcodes (AUDIO_MAX_DURATION_SECONDS). */
  maxDurationSeconds: number;
  /** Wall time of one run; past it the job ends FAILED (JOB_MAX_MS), it is not retried. */
  jobMaxMs: number;
}

class JobTimeLimitError extends Error {
  constructor(ms: number) {
    super(`processing took longer than ${Math.round(ms / 1000)} s`);
    this.name = 'JobTimeLimitError';
  }
}

/** Delays before a transient failure runs again, by run number. */
const RETRY_DELAYS_MS = [2000, 10_000, 30_000];

const FAILED_MESSAGES = {
  undecodable: 'Processing failed: the file could not be decoded as audio.',
  exhausted: 'Processing failed: the media worker could not finish the job.',
} as const;

/**
 * Runs processing jobs outside any database transaction (a transcode takes far longer than a
 * transaction should stay open). A job is claimed with a lease (`FOR UPDATE SKIP LOCKED`, so
 * replicas never share one); the lease is renewed while the job runs. A worker that dies keeps
 * no lease: its job becomes due again when the lease expires and the next run starts from
 * scratch, overwriting the same keys. Runs are counted; after `maxRuns` the job ends FAILED and
 * catalog is told, so a track never stays PROCESSING. Graceful stop aborts running jobs (kills
 * ffmpeg) and hands them back at once without counting the interrupted run.
 */
export class JobRunner {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private wakeUp: (() => void) | null = null;

  constructor(private readonly options: JobRunnerOptions) {}

  start(): void {
    this.loop = this.run();
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
          this.active.set(job.id, { controller, done });
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
    return this.options.jobs.claim(this.options.leaseMs);
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
    const { logger, maxRuns, leaseMs } = this.options;
    if (job.runs > maxRuns) {
      await this.fail(job, FAILED_MESSAGES.exhausted, `gave up after ${maxRuns} runs`);
      return;
    }
    const heartbeat = setInterval(
      () => {
        this.renewLease(job.id).then(
          (held) => {
            if (!held) controller.abort(new Error('lease lost'));
          },
          (err: unknown) => logger.warn({ err, jobId: job.id }, 'lease renewal failed'),
        );
      },
      Math.max(250, Math.floor(leaseMs / 3)),
    );
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
          scratchRoot: this.options.scratchRoot,
          maxDurationSeconds: this.options.maxDurationSeconds,
          signal: controller.signal,
          logger,
          progress: (stepName, progress) => this.progress(job, stepName, progress, controller.signal),
        },
      );
      await this.succeed(job, output);
      jobMetrics.duration.observe({ outcome: 'succeeded' }, (Date.now() - started) / 1000);
      logger.info({ jobId: job.id, trackId: job.track_id, ms: Date.now() - started, durationSeconds: output.durationSeconds }, 'job finished');
    } catch (err) {
      // Whatever happens here, the job row stays consistent: at worst its lease expires and it runs again.
      const settle = async () => {
        if (controller.signal.reason instanceof JobTimeLimitError) {
          await this.fail(job, FAILED_MESSAGES.undecodable, controller.signal.reason.message);
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
        { outcome: controller.signal.aborted && !(controller.signal.reason instanceof JobTimeLimitError) ? 'interrupted' : 'failed' },
        (Date.now() - started) / 1000,
      );
      await settle().catch((e: unknown) => logger.error({ err: e, jobId: job.id }, 'could not record the job outcome'));
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timeLimit);
    }
  }

  private renewLease(id: string): Promise<boolean> {
    return this.options.jobs.renewLease(id, this.options.leaseMs);
  }

  private async progress(job: ClaimedJob, stepName: string, progress: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    await this.options.jobs.progress(job, stepName, progress);
  }

  private succeed(job: ClaimedJob, output: Parameters<JobsRepository['succeed']>[1]): Promise<void> {
    return this.options.jobs.succeed(job, output);
  }

  private async fail(job: ClaimedJob, errorMessage: string, detail: string): Promise<void> {
    this.options.logger.warn({ jobId: job.id, trackId: job.track_id, detail }, 'job failed');
    await this.options.jobs.fail(job, errorMessage, detail);
  }

  private retryLater(job: ClaimedJob, detail: string): Promise<void> {
    const delay = RETRY_DELAYS_MS[Math.min(job.runs - 1, RETRY_DELAYS_MS.length - 1)] ?? 30_000;
    return this.options.jobs.retryLater(job.id, detail, delay);
  }

  /** Shutdown: the interrupted run does not count, and the job is due at once for the next worker. */
  private release(job: ClaimedJob): Promise<void> {
    return this.options.jobs.release(job.id);
  }
}

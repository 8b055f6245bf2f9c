import { TrackProcessed, TrackProcessingFailed, TrackProcessingProgress, writeOutbox, type EventDefinition, type TrackUploaded } from '@msp/events';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { PipelineOutput } from '../media/pipeline.js';

/** A job row as a claim returns it. */
export interface ClaimedJob {
  id: string;
  track_id: number;
  upload_id: string;
  attempt: number;
  bucket: string;
  original_key: string;
  cover_key: string | null;
  public_id: string;
  runs: number;
  /** The upload's request id and trace context: the job's logs and events continue them. */
  correlation_id: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

type JobRef = Pick<ClaimedJob, 'id' | 'track_id' | 'upload_id' | 'attempt'>;

/**
 * The `jobs` table and the events a job's outcome publishes (outbox row in the same
 * transaction). Every state change is conditional on `state = 'RUNNING'`, so a run that lost its
 * lease to another one changes nothing.
 */
export class JobsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One upload event → one job row per upload and attempt; a redelivery adds nothing. */
  async enqueue(
    tx: Prisma.TransactionClient,
    data: typeof TrackUploaded extends EventDefinition<infer T> ? T : never,
    origin: { correlationId?: string | null; traceparent?: string | null; tracestate?: string | null } = {},
  ): Promise<void> {
    await tx.job.createMany({
      data: [
        {
          trackId: data.trackId,
          uploadId: data.uploadId,
          attempt: data.attempt,
          artistId: data.artistId,
          bucket: data.bucket,
          originalKey: data.originalKey,
          format: data.format,
          coverKey: data.coverKey,
          correlationId: origin.correlationId ?? null,
          traceparent: origin.traceparent ?? null,
          tracestate: origin.tracestate ?? null,
        },
      ],
      skipDuplicates: true,
    });
  }

  /** The oldest due job (queued and available, or running with an expired lease), leased; replicas never share one. */
  async claim(leaseMs: number): Promise<ClaimedJob | null> {
    const rows = await this.prisma.$queryRawUnsafe<ClaimedJob[]>(
      `UPDATE jobs SET state = 'RUNNING', runs = runs + 1, lease_until = now() + $1 * interval '1 millisecond', updated_at = now()
       WHERE id = (
         SELECT id FROM jobs
         WHERE (state = 'QUEUED' AND available_at <= now()) OR (state = 'RUNNING' AND lease_until < now())
         ORDER BY created_at, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       )
       RETURNING id::text, track_id, upload_id::text, attempt, bucket, original_key, cover_key, public_id::text, runs, correlation_id, traceparent, tracestate`,
      leaseMs,
    );
    return rows[0] ?? null;
  }

  /** Jobs due now, waiting for a retry, and running (the operator's queue gauges). */
  async queueDepth(): Promise<{ queued: number; delayed: number; running: number }> {
    const [row] = await this.prisma.$queryRawUnsafe<{ queued: number; delayed: number; running: number }[]>(
      `SELECT count(*) FILTER (WHERE state = 'QUEUED' AND available_at <= now())::int AS queued,
              count(*) FILTER (WHERE state = 'QUEUED' AND available_at > now())::int AS delayed,
              count(*) FILTER (WHERE state = 'RUNNING')::int AS running
       FROM jobs WHERE state IN ('QUEUED', 'RUNNING')`,
    );
    return row ?? { queued: 0, delayed: 0, running: 0 };
  }

  /** Age in seconds of the oldest job that is due and not running; 0 when none. */
  async oldestDueAgeSeconds(): Promise<number> {
    const [row] = await this.prisma.$queryRawUnsafe<{ age: number | null }[]>(
      `SELECT EXTRACT(EPOCH FROM now() - min(available_at))::float8 AS age FROM jobs WHERE state = 'QUEUED' AND available_at <= now()`,
    );
    return row?.age ?? 0;
  }

  /** False when the job is no longer this run's (lease lost). */
  async renewLease(id: string, leaseMs: number): Promise<boolean> {
    const n = await this.prisma.$executeRawUnsafe(
      `UPDATE jobs SET lease_until = now() + $2 * interval '1 millisecond' WHERE id = $1::uuid AND state = 'RUNNING'`,
      id,
      leaseMs,
    );
    return n > 0;
  }

  async progress(job: JobRef, stepName: string, progress: number): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await writeOutbox(tx, TrackProcessingProgress, { trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, stepName, progress });
    });
  }

  async succeed(job: JobRef, output: PipelineOutput): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const n = await tx.$executeRawUnsafe(
        `UPDATE jobs SET state = 'SUCCEEDED', lease_until = NULL, last_error = NULL, updated_at = now() WHERE id = $1::uuid AND state = 'RUNNING'`,
        job.id,
      );
      if (n === 0) return; // another run took over after a lost lease; it reports instead
      await writeOutbox(tx, TrackProcessed, { trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, ...output });
    });
  }

  async fail(job: JobRef, errorMessage: string, detail: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const n = await tx.$executeRawUnsafe(
        `UPDATE jobs SET state = 'FAILED', lease_until = NULL, last_error = $2, updated_at = now() WHERE id = $1::uuid AND state = 'RUNNING'`,
        job.id,
        detail.slice(0, 2000),
      );
      if (n === 0) return;
      await writeOutbox(tx, TrackProcessingFailed, { trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, errorMessage });
    });
  }

  async retryLater(id: string, detail: string, delayMs: number): Promise<void> {
    await this.prisma.$executeRawUnsafe(
      `UPDATE jobs SET state = 'QUEUED', lease_until = NULL, last_error = $2, available_at = now() + $3 * interval '1 millisecond', updated_at = now()
       WHERE id = $1::uuid AND state = 'RUNNING'`,
      id,
      detail.slice(0, 2000),
      delayMs,
    );
  }

  /** Shutdown: the interrupted run does not count, and the job is due at once for the next worker. */
  async release(id: string): Promise<void> {
    await this.prisma.$executeRawUnsafe(
      `UPDATE jobs SET state = 'QUEUED', lease_until = NULL, runs = GREATEST(runs - 1, 0), available_at = now(), updated_at = now()
       WHERE id = $1::uuid AND state = 'RUNNING'`,
      id,
    );
  }
}

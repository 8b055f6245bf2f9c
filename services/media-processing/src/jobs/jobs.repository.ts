import { sql } from '@msp/db';
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
  /** This claim's token: renewals and outcomes present it. */
  lease_token: string;
  /** The upload's request id and trace context: the job's logs and events continue them. */
  correlation_id: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

type JobRef = Pick<ClaimedJob, 'id' | 'track_id' | 'upload_id' | 'attempt' | 'lease_token'>;

/**
 * The `jobs` table and the events a job's outcome publishes (outbox row in the same
 * transaction). Every change a run makes is conditional on its lease token (`state = 'RUNNING' AND
 * lease_token = …`), so a run that lost its lease to another one changes nothing and publishes
 * nothing: one completion event per job whatever the number of runs.
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

  /**
   * The next due job, leased to `worker` under a new lease token; replicas never share one. Due:
   * queued and available, running with an expired lease (its worker stopped renewing), or — when
   * `worker.reclaim` (this process holds its identity) — running under the same identity but an
   * earlier generation (this worker's previous boot, dead). Interrupted jobs come before queued ones.
   */
  async claim(leaseMs: number, worker: { id: string; generation: string; reclaim: boolean }): Promise<ClaimedJob | null> {
    const rows = await this.prisma.$queryRaw<ClaimedJob[]>(
      sql`UPDATE jobs SET state = 'RUNNING', runs = runs + 1, lease_until = now() + ${leaseMs} * interval '1 millisecond',
              lease_owner = ${worker.id}, lease_generation = ${worker.generation}::uuid, lease_token = gen_random_uuid(), updated_at = now()
       WHERE id = (
         SELECT id FROM jobs
         WHERE (state = 'QUEUED' AND available_at <= now())
            OR (state = 'RUNNING' AND (lease_until < now() OR (${worker.reclaim}::boolean AND lease_owner = ${worker.id} AND lease_generation IS DISTINCT FROM ${worker.generation}::uuid)))
         ORDER BY (state = 'RUNNING') DESC, created_at, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       )
       RETURNING id::text, track_id, upload_id::text, attempt, bucket, original_key, cover_key, public_id::text, runs, lease_token::text,
                 correlation_id, traceparent, tracestate`,
    );
    return rows[0] ?? null;
  }

  /** Jobs due now, waiting for a retry, and running (the operator's queue gauges). */
  async queueDepth(): Promise<{ queued: number; delayed: number; running: number }> {
    const [row] = await this.prisma.$queryRaw<{ queued: number; delayed: number; running: number }[]>(
      sql`SELECT count(*) FILTER (WHERE state = 'QUEUED' AND available_at <= now())::int AS queued,
              count(*) FILTER (WHERE state = 'QUEUED' AND available_at > now())::int AS delayed,
              count(*) FILTER (WHERE state = 'RUNNING')::int AS running
       FROM jobs WHERE state IN ('QUEUED', 'RUNNING')`,
    );
    return row ?? { queued: 0, delayed: 0, running: 0 };
  }

  /** Age in seconds of the oldest job that is due and not running; 0 when none. */
  async oldestDueAgeSeconds(): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ age: number | null }[]>(
      sql`SELECT EXTRACT(EPOCH FROM now() - min(available_at))::float8 AS age FROM jobs WHERE state = 'QUEUED' AND available_at <= now()`,
    );
    return row?.age ?? 0;
  }

  /**
   * The heartbeat: extends the leases of this process's runs in one statement and returns the
   * tokens still held (a run whose token is missing lost its job to another worker).
   */
  async renewLeases(tokens: readonly string[], leaseMs: number): Promise<Set<string>> {
    if (tokens.length === 0) return new Set();
    const rows = await this.prisma.$queryRaw<{ token: string }[]>(
      sql`UPDATE jobs SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
       WHERE lease_token = ANY(${tokens}::uuid[]) AND state = 'RUNNING'
       RETURNING lease_token::text AS token`,
    );
    return new Set(rows.map((r) => r.token));
  }

  /**
   * A progress step, reported once per job: a rerun's steps at or below the highest percentage
   * already reported write no event again. False when the run no longer holds the job.
   */
  async progress(job: JobRef, stepName: string, progress: number): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ before: number }[]>(
        sql`UPDATE jobs j SET progress = GREATEST(j.progress, ${progress})
         FROM (SELECT id, progress AS before FROM jobs WHERE id = ${job.id}::uuid FOR UPDATE) o
         WHERE j.id = o.id AND j.state = 'RUNNING' AND j.lease_token = ${job.lease_token}::uuid
         RETURNING o.before`,
      );
      const row = rows[0];
      if (!row) return false;
      if (row.before < progress) {
        await writeOutbox(tx, TrackProcessingProgress, { trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, stepName, progress });
      }
      return true;
    });
  }

  /** False when the run no longer held the job (another run reports instead). */
  async succeed(job: JobRef, output: PipelineOutput): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const n = await tx.$executeRaw(
        sql`UPDATE jobs SET state = 'SUCCEEDED', progress = 100, lease_until = NULL, lease_token = NULL, last_error = NULL, updated_at = now()
         WHERE id = ${job.id}::uuid AND state = 'RUNNING' AND lease_token = ${job.lease_token}::uuid`,
      );
      if (n === 0) return false;
      await writeOutbox(tx, TrackProcessed, { trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, ...output });
      return true;
    });
  }

  async fail(job: JobRef, errorMessage: string, detail: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const n = await tx.$executeRaw(
        sql`UPDATE jobs SET state = 'FAILED', lease_until = NULL, lease_token = NULL, last_error = ${detail.slice(0, 2000)}, updated_at = now()
         WHERE id = ${job.id}::uuid AND state = 'RUNNING' AND lease_token = ${job.lease_token}::uuid`,
      );
      if (n === 0) return;
      await writeOutbox(tx, TrackProcessingFailed, { trackId: job.track_id, uploadId: job.upload_id, attempt: job.attempt, errorMessage });
    });
  }

  async retryLater(job: JobRef, detail: string, delayMs: number): Promise<void> {
    await this.prisma.$executeRaw(
      sql`UPDATE jobs SET state = 'QUEUED', lease_until = NULL, lease_token = NULL, last_error = ${detail.slice(0, 2000)}, available_at = now() + ${delayMs} * interval '1 millisecond', updated_at = now()
       WHERE id = ${job.id}::uuid AND state = 'RUNNING' AND lease_token = ${job.lease_token}::uuid`,
    );
  }

  /** Shutdown: the interrupted run does not count, and the job is due at once for the next worker. */
  async release(job: JobRef): Promise<void> {
    await this.prisma.$executeRaw(
      sql`UPDATE jobs SET state = 'QUEUED', lease_until = NULL, lease_token = NULL, runs = GREATEST(runs - 1, 0), available_at = now(), updated_at = now()
       WHERE id = ${job.id}::uuid AND state = 'RUNNING' AND lease_token = ${job.lease_token}::uuid`,
    );
  }
}

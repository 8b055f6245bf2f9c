import { setTimeout as sleep } from 'node:timers/promises';
import { DurableConsumer, UserDeleted, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { removeInBatches, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import type { JobRunnerLogger } from '../jobs/job-runner.js';
import type { DoomedJob, MediaAccountDeletionRepository } from './account-deletion.repository.js';

const JOB_BATCH = 50;

export interface MediaAccountDeletionDeps {
  repo: MediaAccountDeletionRepository;
  /** The storage of a job's bucket ('' = the default bucket). */
  storageFor(bucket: string): Pick<ObjectStorage, 'list' | 'remove'>;
  /**
   * How long a run whose job was deleted may still write before its heartbeat stops it: the
   * objects of jobs that were running are removed again after it.
   */
  settleMs: number;
  logger: Pick<Logger, 'info' | 'debug' | 'warn'>;
}

/** Every object a job's runs can have written, and its inputs: original, cover, renditions, public assets. */
async function removeObjects(deps: MediaAccountDeletionDeps, job: DoomedJob): Promise<void> {
  const storage = deps.storageFor(job.bucket);
  const keys = [job.originalKey, job.coverKey].filter((k): k is string => !!k);
  keys.push(...(await storage.list(`tracks/${job.trackId}/`)), ...(await storage.list(`public/${job.publicId}/`)));
  for (let i = 0; i < keys.length; i += 1000) await storage.remove(keys.slice(i, i + 1000));
}

/**
 * Removes what media-processing holds of a deleted user (docs/account-control.md): their jobs, the
 * fingerprints of their tracks and every object the jobs read or wrote. Objects go before the rows
 * naming them, so a crash leaves rows that the redelivery finds again; rerunning changes nothing.
 */
export async function deleteUserFromMedia(deps: MediaAccountDeletionDeps, userId: number): Promise<void> {
  const running: DoomedJob[] = [];
  await removeInBatches(
    async () => {
      const jobs = await deps.repo.nextJobs(userId, JOB_BATCH);
      if (jobs.length === 0) return 0;
      for (const job of jobs) await removeObjects(deps, job);
      // One short transaction per track: a track's fingerprint has thousands of index rows.
      for (const trackId of new Set(jobs.map((j) => j.trackId))) await deps.repo.deleteTrackFingerprints(trackId);
      await deps.repo.deleteJobs(jobs.map((j) => j.id));
      running.push(...jobs.filter((j) => j.running));
      return jobs.length;
    },
    { name: 'media-processing.jobs', logger: deps.logger, context: { userId } },
  );
  if (running.length > 0) {
    // A run in progress may have written more before its heartbeat stopped it.
    await sleep(deps.settleMs);
    for (const job of running) await removeObjects(deps, job);
  }
  deps.logger.info({ userId }, 'account deleted from media-processing');
}

/**
 * The durable `media-processing--account-deletion` consumer of identity's `UserDeleted` (a
 * long-running handler: outside a transaction, redelivered after a crash, recorded once done).
 */
export async function startMediaAccountDeletion<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: JobRunnerLogger;
  deps: MediaAccountDeletionDeps;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({
    nc: options.nc,
    db: options.db,
    logger: options.logger,
    service: 'media-processing',
    name: 'account-deletion',
    from: 'identity',
  }).onLongRunning(UserDeleted, (d) => deleteUserFromMedia(options.deps, d.userId));
  await consumer.start();
  return consumer;
}

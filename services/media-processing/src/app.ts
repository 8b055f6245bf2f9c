import { fileURLToPath } from 'node:url';
import { createServiceApp } from '@msp/runtime';
import { ObjectStorage } from '@msp/storage';
import { PrismaClient } from './generated/prisma/client.js';
import type { MediaProcessingConfig } from './config.js';
import { resolveMediaBinaries, useMediaBinaries, versionCheck } from './media/ffmpeg.js';
import { defaultScratchRoot } from './media/pipeline.js';
import { FingerprintRepository } from './fingerprint/fingerprint.repository.js';
import { FingerprintStep } from './fingerprint/fingerprint.service.js';
import { JobRunner } from './jobs/job-runner.js';
import { observeJobQueue } from './jobs/metrics.js';
import { JobsRepository } from './jobs/jobs.repository.js';
import { uploadConsumer } from './jobs/upload-consumer.js';
import { WorkerIdentity } from './jobs/worker-identity.js';
import { probeModule } from './probe/probe.routes.js';
import { startMediaAccountDeletion } from './deletion/account-deletion.consumer.js';
import { MediaAccountDeletionRepository } from './deletion/account-deletion.repository.js';

export { loadMediaProcessingConfig, type MediaProcessingConfig } from './config.js';
export { PROBE_ROUTE } from './probe/probe.routes.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

/**
 * A worker with no public route (docs/api.md "Gateway"): the HTTP side is /health, /ready, /metrics,
 * /openapi.json and the hidden internal probe catalog uses before accepting an upload (R11).
 * Upload events become Job rows; the JobRunner transcodes them outside any transaction and
 * reports progress and the result through the outbox (see README.md).
 */
export async function buildApp(config: MediaProcessingConfig, options: { logger?: boolean } = {}) {
  const media = await resolveMediaBinaries(config);
  useMediaBinaries(media);
  const { app, infra, addReadiness, stopOnClose } = await createServiceApp({
    service: 'media-processing',
    config,
    migrationsDir,
    createPrisma: (adapter) => new PrismaClient({ adapter }),
    logger: options.logger,
  });

  const ffmpegRuns = versionCheck([media.ffprobe.path, media.ffmpeg.path]);
  addReadiness('ffmpeg', ffmpegRuns);
  // Run once now: the log says at boot which binaries are used and whether they start.
  await ffmpegRuns().then(
    () => app.log.info({ ffmpeg: media.ffmpeg, ffprobe: media.ffprobe }, 'media binaries ready'),
    (err: unknown) => app.log.warn({ err, ffmpeg: media.ffmpeg, ffprobe: media.ffprobe }, 'media binaries do not run; not ready'),
  );

  // Upload events name the bucket (catalog's); one client per bucket, same endpoint and keys.
  const buckets = new Map<string, ObjectStorage>([[infra.storage.bucket, infra.storage]]);
  const storageFor = (bucket: string) => {
    let storage = buckets.get(bucket);
    if (!storage) {
      storage = new ObjectStorage({
        endpoint: config.S3_ENDPOINT,
        region: config.S3_REGION,
        accessKey: config.S3_ACCESS_KEY,
        secretKey: config.S3_SECRET_KEY,
        bucket,
      });
      buckets.set(bucket, storage);
    }
    return storage;
  };

  const jobs = new JobsRepository(infra.prisma);
  const identity = await WorkerIdentity.acquire({ databaseUrl: config.DATABASE_URL, workerId: config.WORKER_ID, logger: app.log });
  const runner = new JobRunner({
    jobs,
    identity,
    binaries: media,
    storageFor,
    logger: app.log,
    concurrency: config.WORKER_CONCURRENCY,
    leaseMs: config.JOB_LEASE_MS,
    heartbeatMs: config.JOB_HEARTBEAT_MS,
    maxRuns: config.JOB_MAX_RUNS,
    pollMs: config.JOB_POLL_MS,
    scratchRoot: defaultScratchRoot(config.SCRATCH_DIR),
    maxDurationSeconds: config.AUDIO_MAX_DURATION_SECONDS,
    jobMaxMs: config.JOB_MAX_MS,
    fingerprint: new FingerprintStep(new FingerprintRepository(infra.prisma), media.ffmpeg.path, app.log, config.AUDIO_MAX_DURATION_SECONDS),
  });
  observeJobQueue(jobs);
  // Stopped in reverse order: the consumer first (no new jobs), then the runner (hands jobs back),
  // then the identity's lock (the next boot with this identity takes it at once).
  stopOnClose({
    stop: async () => {
      observeJobQueue(undefined);
      await runner.stop().finally(() => identity.close());
    },
  });
  runner.start();
  const consumer = stopOnClose(uploadConsumer({ nc: infra.nc, prisma: infra.prisma, jobs, logger: app.log, runner }));
  await consumer.start();
  // Account deletion (docs/account-control.md): the user's jobs, fingerprints and objects.
  stopOnClose(
    await startMediaAccountDeletion({
      nc: infra.nc,
      db: infra.prisma,
      logger: app.log,
      deps: {
        repo: new MediaAccountDeletionRepository(infra.prisma),
        storageFor: (bucket) => storageFor(bucket || infra.storage.bucket),
        settleMs: 2 * config.JOB_HEARTBEAT_MS,
        logger: app.log,
      },
    }),
  );

  await app.register(probeModule, { binaries: media, storageFor });
  return Object.assign(app, { infra, media, runner, identity });
}

import { UploadStepSchema } from '@msp/contracts';
import { DurableConsumer, TrackProcessed, TrackProcessingFailed, TrackProcessingProgress, type NatsConnection, type RelayLogger } from '@msp/events';
import { SoundRepository } from '../sound/sound.repository.js';
import { processingRepository as repo, type ProcessingDb } from './processing.repository.js';
import type { TrackEvents } from './track-events.js';
import type { TrackLifecycleService } from './track-lifecycle.service.js';

/**
 * media-processing → track state (R11): UPLOADING → PROCESSING on the first progress event, then
 * FINISHED or FAILED. Every accepted change republishes the Upload status message for WS-2.
 * Events of an older attempt, of a deleted track, or that would lower the percentage are ignored
 * (a restarted job reports its early steps again).
 */
export function processingConsumer(options: {
  nc: NatsConnection;
  prisma: ProcessingDb;
  logger: RelayLogger;
  events: TrackEvents;
  lifecycle: Pick<TrackLifecycleService, 'removeMedia'>;
}) {
  const { events, lifecycle } = options;
  return new DurableConsumer({
    nc: options.nc,
    db: options.prisma,
    logger: options.logger,
    service: 'catalog',
    name: 'media-processing',
    from: 'media-processing',
  })
    .on(TrackProcessingProgress, async (data, envelope, tx) => {
      const row = await repo.current(tx, data.trackId, data.uploadId, data.attempt);
      if (!row || row.deletedAt || row.state === 'FINISHED' || row.state === 'FAILED') return;
      if (!UploadStepSchema.safeParse(data.stepName).success || data.progress >= 100) return;
      if (data.progress <= (row.statusProgress ?? 0)) return;
      const next = await repo.progress(tx, row.id, data.stepName, data.progress);
      await events.publishStatus(tx, next, envelope.correlationId);
      if (row.state !== 'PROCESSING') await events.emitChanged(tx, next, envelope.correlationId);
    })
    .on(TrackProcessed, async (data, envelope, tx) => {
      const row = await repo.current(tx, data.trackId, data.uploadId, data.attempt);
      if (!row || row.state === 'FINISHED') return;
      if (row.deletedAt) {
        // Deleted while processing: what the worker wrote has no owner any more.
        await lifecycle.removeMedia(row.id, [data.waveformKey, data.waveformJsonKey, ...(data.coverKey ? [data.coverKey] : [])]);
        return;
      }
      // Measured on the original (docs/sound.md): a rerun replaces it, a failed measurement clears it.
      await SoundRepository.saveMeasurement(tx, row.id, data.loudness ?? null);
      const next = await repo.finished(tx, row, data);
      await events.publishStatus(tx, next, envelope.correlationId);
      await events.afterChange(tx, row, next, envelope.correlationId);
    })
    .on(TrackProcessingFailed, async (data, envelope, tx) => {
      const row = await repo.current(tx, data.trackId, data.uploadId, data.attempt);
      if (!row || row.deletedAt || row.state === 'FINISHED' || row.state === 'FAILED') return;
      const next = await repo.failed(tx, row.id, data.errorMessage);
      await events.publishStatus(tx, next, envelope.correlationId);
      await events.afterChange(tx, row, next, envelope.correlationId);
    });
}

import { UploadStepSchema } from '@msp/contracts';
import { DurableConsumer, TrackProcessed, TrackProcessingFailed, TrackProcessingProgress, type NatsConnection, type RelayLogger } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { trackSelect } from './track.mapper.js';
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
  prisma: PrismaClient;
  logger: RelayLogger;
  events: TrackEvents;
  lifecycle: Pick<TrackLifecycleService, 'removeMedia'>;
}) {
  const { events, lifecycle } = options;
  const current = async (tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0], trackId: number, uploadId: string, attempt: number) => {
    const row = await tx.track.findUnique({ where: { id: trackId }, select: { ...trackSelect, processingAttempt: true } });
    if (!row || row.uploadId !== uploadId || row.processingAttempt !== attempt) return null;
    return row;
  };

  return new DurableConsumer({
    nc: options.nc,
    db: options.prisma,
    logger: options.logger,
    service: 'catalog',
    name: 'media-processing',
    from: 'media-processing',
  })
    .on(TrackProcessingProgress, async (data, envelope, tx) => {
      const row = await current(tx, data.trackId, data.uploadId, data.attempt);
      if (!row || row.deletedAt || row.state === 'FINISHED' || row.state === 'FAILED') return;
      if (!UploadStepSchema.safeParse(data.stepName).success || data.progress >= 100) return;
      if (data.progress <= (row.statusProgress ?? 0)) return;
      const next = await tx.track.update({
        where: { id: row.id },
        data: { state: 'PROCESSING', statusStep: data.stepName, statusProgress: data.progress, statusUpdatedAt: new Date() },
        select: trackSelect,
      });
      await events.publishStatus(tx, next, envelope.correlationId);
      if (row.state !== 'PROCESSING') await events.emitChanged(tx, next, envelope.correlationId);
    })
    .on(TrackProcessed, async (data, envelope, tx) => {
      const row = await current(tx, data.trackId, data.uploadId, data.attempt);
      if (!row || row.state === 'FINISHED') return;
      if (row.deletedAt) {
        // Deleted while processing: what the worker wrote has no owner any more.
        await lifecycle.removeMedia(row.id, [data.waveformKey, data.waveformJsonKey, ...(data.coverKey ? [data.coverKey] : [])]);
        return;
      }
      const next = await tx.track.update({
        where: { id: row.id },
        data: {
          state: 'FINISHED',
          durationSeconds: Math.max(0, Math.round(data.durationSeconds)),
          progressiveKey: data.progressiveKey,
          hlsPlaylistKey: data.hlsPlaylistKey,
          hlsPrefix: data.hlsPrefix,
          previewKey: data.previewKey,
          waveformKey: data.waveformKey,
          waveformJsonKey: data.waveformJsonKey,
          ...(data.coverKey ? { coverKey: data.coverKey } : {}),
          statusStep: 'Done',
          statusProgress: 100,
          errorMessage: null,
          statusUpdatedAt: new Date(),
          ...(!row.isPrivate && !row.publishedAt ? { publishedAt: new Date() } : {}),
        },
        select: trackSelect,
      });
      await events.publishStatus(tx, next, envelope.correlationId);
      await events.afterChange(tx, row, next, envelope.correlationId);
    })
    .on(TrackProcessingFailed, async (data, envelope, tx) => {
      const row = await current(tx, data.trackId, data.uploadId, data.attempt);
      if (!row || row.deletedAt || row.state === 'FINISHED' || row.state === 'FAILED') return;
      const next = await tx.track.update({
        where: { id: row.id },
        data: { state: 'FAILED', statusStep: 'Processing failed', statusProgress: null, errorMessage: data.errorMessage, statusUpdatedAt: new Date() },
        select: trackSelect,
      });
      await events.publishStatus(tx, next, envelope.correlationId);
      await events.afterChange(tx, row, next, envelope.correlationId);
    });
}

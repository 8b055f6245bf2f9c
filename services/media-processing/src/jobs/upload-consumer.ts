import { DurableConsumer, TrackUploaded, type NatsConnection } from '@msp/events';
import { currentTraceCarrier } from '@msp/telemetry';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { JobRunner, JobRunnerLogger } from './job-runner.js';

/**
 * catalog.track.uploaded.v1 → one Job row per upload and attempt, inside the consumer's short
 * transaction (with the processed-event record); the ack follows the commit. The transcode itself
 * runs later in the JobRunner, outside any transaction. A redelivered event finds its row and
 * adds nothing.
 */
export function uploadConsumer(options: { nc: NatsConnection; prisma: PrismaClient; logger: JobRunnerLogger; runner: JobRunner }) {
  return new DurableConsumer({
    nc: options.nc,
    db: options.prisma,
    logger: options.logger,
    service: 'media-processing',
    name: 'uploads',
    from: 'catalog',
  }).on(TrackUploaded, async (data, envelope, tx) => {
    // The job runs later, outside this handling: it keeps the upload's request id and trace.
    const trace = currentTraceCarrier();
    await tx.job.createMany({
      data: [{
        trackId: data.trackId,
        uploadId: data.uploadId,
        attempt: data.attempt,
        artistId: data.artistId,
        bucket: data.bucket,
        originalKey: data.originalKey,
        format: data.format,
        coverKey: data.coverKey,
        correlationId: envelope.correlationId,
        traceparent: trace.traceparent ?? null,
        tracestate: trace.tracestate ?? null,
      }],
      skipDuplicates: true,
    });
    // The row is visible once the consumer commits, right after this returns; the poll covers a miss.
    setTimeout(() => options.runner.wake(), 25);
  });
}

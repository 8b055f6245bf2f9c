import { DurableConsumer, TrackUploaded, type NatsConnection } from '@msp/events';
import { currentTraceCarrier } from '@msp/telemetry';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { JobRunner, JobRunnerLogger } from './job-runner.js';
import type { JobsRepository } from './jobs.repository.js';

/**
 * catalog.track.uploaded.v1 → one Job row per upload and attempt, inside the consumer's short
 * transaction (with the processed-event record); the ack follows the commit. The transcode itself
 * runs later in the JobRunner, outside any transaction. A redelivered event finds its row and
 * adds nothing.
 */
export function uploadConsumer(options: { nc: NatsConnection; prisma: PrismaClient; jobs: JobsRepository; logger: JobRunnerLogger; runner: JobRunner }) {
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
    await options.jobs.enqueue(tx, data, { correlationId: envelope.correlationId, traceparent: trace.traceparent, tracestate: trace.tracestate });
    // The row is visible once the consumer commits, right after this returns; the poll covers a miss.
    setTimeout(() => options.runner.wake(), 25);
  });
}

export { defineEvent, createEnvelope, EnvelopeSchema, type EventDefinition, type EventEnvelope } from './envelope.js';
export { ensureStreams, ensureStreamOf, streamNameFor, DLQ_STREAM, configureStreams, type StreamOptions } from './streams.js';
export { writeOutbox } from './outbox.js';
export { configureEventContext, type EventContextHooks } from './context.js';
export { OutboxRelay, type OutboxRelayOptions, type RelayLogger } from './relay.js';
export {
  DurableWorker,
  WorkerStoppedError,
  backoffDelayMs,
  type BatchContext,
  type BatchOutcome,
  type DurableWorkerOptions,
  type WorkerLogger,
} from './durable-worker.js';
export { DurableConsumer, type BatchHandler, type ConsumerOptions, type EventHandler, type LongRunningHandler } from './consumer.js';
export { connectNats } from './connection.js';
export { eventMetrics } from './metrics.js';
export { EVENTS_MIGRATIONS, eventTablesMigration, type SharedMigration } from './migrations.js';
export { OUTBOX_TABLE, PROCESSED_TABLE, type SqlExecutor, type TransactionalClient } from './sql.js';
export * from './definitions/index.js';
export type { NatsConnection } from '@nats-io/transport-node';

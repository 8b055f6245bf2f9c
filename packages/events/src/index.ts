export { defineEvent, createEnvelope, EnvelopeSchema, type EventDefinition, type EventEnvelope } from './envelope.js';
export { ensureStreams, ensureStreamOf, streamNameFor, DLQ_STREAM } from './streams.js';
export { writeOutbox } from './outbox.js';
export { OutboxRelay, type OutboxRelayOptions, type RelayLogger } from './relay.js';
export { DurableConsumer, type ConsumerOptions, type EventHandler } from './consumer.js';
export { connectNats } from './connection.js';
export { eventMetrics } from './metrics.js';
export { OUTBOX_TABLE, PROCESSED_TABLE, type SqlExecutor, type TransactionalClient } from './sql.js';
export * from './definitions/index.js';

import type { ServiceName } from '@msp/contracts';
import { nanos } from '@nats-io/transport-node';
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';

export const DLQ_STREAM = 'DLQ';

/** Each producing service owns one stream holding its subjects `<service>.>`. */
export function streamNameFor(service: ServiceName): string {
  return service.toUpperCase().replace(/-/g, '_');
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** How streams are stored; `replicas` is the JetStream replication factor (3 on a three-node cluster). */
export interface StreamOptions {
  replicas?: number;
}

let defaultReplicas = 1;
/**
 * The replication factor of every stream this process creates or updates (NATS_STREAM_REPLICAS,
 * set once at boot): producers and consumers (which ensure their producer's stream) agree on it.
 */
export function configureStreams(options: StreamOptions): void {
  defaultReplicas = options.replicas ?? 1;
}

async function upsertStream(jsm: JetStreamManager, name: string, subjects: string[], maxAgeMs: number, options: StreamOptions = {}): Promise<void> {
  const config = {
    name,
    num_replicas: options.replicas ?? defaultReplicas,
    subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos(maxAgeMs),
    // The relay publishes with the event id as message id; JetStream drops re-publishes in this window.
    duplicate_window: nanos(2 * 60 * 1000),
  };
  try {
    await jsm.streams.info(name);
    await jsm.streams.update(name, config);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (error) {
      // Another replica created it in between.
      await jsm.streams.info(name).catch(() => {
        throw error;
      });
    }
  }
}

/** Creates (or updates) the service's own stream and the shared dead-letter stream. */
export async function ensureStreams(jsm: JetStreamManager, service: ServiceName, options: StreamOptions = {}): Promise<void> {
  await upsertStream(jsm, streamNameFor(service), [`${service}.>`], 7 * DAY_MS, options);
  await upsertStream(jsm, DLQ_STREAM, ['dlq.>'], 30 * DAY_MS, options);
}

export async function ensureStreamOf(jsm: JetStreamManager, producer: ServiceName, options: StreamOptions = {}): Promise<void> {
  await upsertStream(jsm, streamNameFor(producer), [`${producer}.>`], 7 * DAY_MS, options);
}

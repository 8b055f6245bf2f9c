import { Counter, Gauge } from 'prom-client';

/** Registered in prom-client's default registry, which every service exposes at /metrics. */
export const eventMetrics = {
  published: new Counter({ name: 'events_published_total', help: 'Events relayed from the outbox to JetStream', labelNames: ['type'] }),
  consumed: new Counter({ name: 'events_consumed_total', help: 'Events handled and acknowledged', labelNames: ['consumer', 'type', 'outcome'] }),
  deadLettered: new Counter({ name: 'events_dead_lettered_total', help: 'Events moved to the dead-letter stream', labelNames: ['consumer', 'type'] }),
};

// --- Operator gauges, read at scrape time ----------------------------------------------------------
// An operator pages on: events stuck in an outbox (NATS or the relay down), consumers falling behind
// or redelivering, and dead letters. Sources register while they run; a scrape asks them.

/** Something that can count its outbox backlog (an OutboxRelay). */
export interface OutboxBacklogSource {
  backlog(): Promise<{ count: number; oldestSeconds: number }>;
}

/** Something that can describe its durable consumer on the server (a DurableConsumer). */
export interface ConsumerLagSource {
  readonly durable: string;
  lag(): Promise<{ pending: number; ackPending: number; redelivered: number; deadLetters: number }>;
}

const outboxSources = new Set<OutboxBacklogSource>();
const consumerSources = new Set<ConsumerLagSource>();
const SCRAPE_TIMEOUT_MS = 1500;

export function registerOutboxSource(source: OutboxBacklogSource): () => void {
  outboxSources.add(source);
  return () => outboxSources.delete(source);
}

export function registerConsumerSource(source: ConsumerLagSource): () => void {
  consumerSources.add(source);
  return () => consumerSources.delete(source);
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('metrics source timed out')), SCRAPE_TIMEOUT_MS).unref())]);
}

const backlogs = sharedRead(async (): Promise<{ count: number; oldestSeconds: number } | undefined> => {
  const results = await Promise.allSettled([...outboxSources].map((s) => withTimeout(s.backlog())));
  const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  if (ok.length === 0) return undefined;
  return { count: ok.reduce((n, r) => n + r.count, 0), oldestSeconds: Math.max(...ok.map((r) => r.oldestSeconds)) };
});

new Gauge({
  name: 'outbox_unpublished_events',
  help: 'Outbox rows committed but not yet published to JetStream',
  async collect() {
    const b = await backlogs();
    if (b) this.set(b.count);
  },
});

new Gauge({
  name: 'outbox_oldest_unpublished_age_seconds',
  help: 'Age of the oldest outbox row not yet published (0 when none)',
  async collect() {
    const b = await backlogs();
    if (b) this.set(b.oldestSeconds);
  },
});

const consumerGauges = {
  up: new Gauge({
    name: 'events_consumer_up',
    help: '1 when the durable consumer could be read from JetStream at this scrape, else 0',
    labelNames: ['consumer'],
    collect: () => refreshConsumers(),
  }),
  pending: new Gauge({
    name: 'events_consumer_pending_messages',
    help: 'Messages of the stream not yet delivered to the durable consumer (lag)',
    labelNames: ['consumer'],
    collect: () => refreshConsumers(),
  }),
  ackPending: new Gauge({
    name: 'events_consumer_ack_pending_messages',
    help: 'Messages delivered and not yet acknowledged',
    labelNames: ['consumer'],
    collect: () => refreshConsumers(),
  }),
  redelivered: new Gauge({
    name: 'events_consumer_redelivered_messages',
    help: 'Messages delivered more than once and not yet acknowledged',
    labelNames: ['consumer'],
    collect: () => refreshConsumers(),
  }),
  deadLetters: new Gauge({
    name: 'events_dead_letter_messages',
    help: 'Messages of the consumer parked in the DLQ stream',
    labelNames: ['consumer'],
    collect: () => refreshConsumers(),
  }),
};

/** One read per scrape for several gauges: the gauges of a registry are collected in parallel. */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

const refreshConsumers = sharedRead(async () => {
  const readings = await Promise.all(
    [...consumerSources].map(async (source) => {
      try {
        return { consumer: source.durable, lag: await withTimeout(source.lag()) };
      } catch {
        // NATS unreachable: the lag is unknown, not zero.
        return { consumer: source.durable, lag: undefined };
      }
    }),
  );
  for (const gauge of Object.values(consumerGauges)) gauge.reset();
  for (const { consumer, lag } of readings) {
    consumerGauges.up.set({ consumer }, lag ? 1 : 0);
    if (!lag) continue;
    consumerGauges.pending.set({ consumer }, lag.pending);
    consumerGauges.ackPending.set({ consumer }, lag.ackPending);
    consumerGauges.redelivered.set({ consumer }, lag.redelivered);
    consumerGauges.deadLetters.set({ consumer }, lag.deadLetters);
  }
});

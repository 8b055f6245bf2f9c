import { Counter } from 'prom-client';

/** Registered in prom-client's default registry, which every service exposes at /metrics. */
export const eventMetrics = {
  published: new Counter({ name: 'events_published_total', help: 'Events relayed from the outbox to JetStream', labelNames: ['type'] }),
  consumed: new Counter({ name: 'events_consumed_total', help: 'Events handled and acknowledged', labelNames: ['consumer', 'type', 'outcome'] }),
  deadLettered: new Counter({ name: 'events_dead_lettered_total', help: 'Events moved to the dead-letter stream', labelNames: ['consumer', 'type'] }),
};

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ServiceName } from '@msp/contracts';
import { currentTraceCarrier } from '@msp/telemetry';

/** The single envelope every event travels in (JetStream message body). */
export const EnvelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  occurredAt: z.string(),
  producer: z.string().min(1),
  correlationId: z.string().nullable(),
  data: z.unknown(),
  /** W3C trace context of the work that wrote the event: the trace goes on across NATS. */
  traceparent: z.string().max(256).optional(),
  tracestate: z.string().max(512).optional(),
});

export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  occurredAt: string;
  producer: ServiceName;
  correlationId: string | null;
  data: T;
  traceparent?: string;
  tracestate?: string;
}

/**
 * One definition per event: `<service>.<aggregate>.<past-tense-verb>.v<N>`. The type is also the
 * NATS subject, so the producer's stream (`<service>.>`) captures it. Changes are additive only;
 * a breaking change is a new version.
 */
export interface EventDefinition<T = unknown> {
  type: string;
  producer: ServiceName;
  schema: z.ZodType<T>;
}

const TYPE_PATTERN = /^([a-z-]+)\.[a-z-]+\.[a-z-]+\.v\d+$/;

export function defineEvent<T>(type: string, schema: z.ZodType<T>): EventDefinition<T> {
  const match = TYPE_PATTERN.exec(type);
  if (!match) throw new Error(`Event type "${type}" does not follow <service>.<aggregate>.<verb>.v<N>`);
  return { type, producer: match[1] as ServiceName, schema };
}

export function createEnvelope<T>(def: EventDefinition<T>, data: T, correlationId: string | null = null): EventEnvelope<T> {
  return {
    id: randomUUID(),
    type: def.type,
    occurredAt: new Date().toISOString(),
    producer: def.producer,
    correlationId,
    data: def.schema.parse(data),
    ...definedOnly(currentTraceCarrier()),
  };
}

function definedOnly(carrier: { traceparent?: string; tracestate?: string }): { traceparent?: string; tracestate?: string } {
  const out: { traceparent?: string; tracestate?: string } = {};
  if (carrier.traceparent) out.traceparent = carrier.traceparent;
  if (carrier.tracestate) out.tracestate = carrier.tracestate;
  return out;
}

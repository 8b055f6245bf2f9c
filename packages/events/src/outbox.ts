import { createEnvelope, type EventDefinition, type EventEnvelope } from './envelope.js';
import { eventContext } from './context.js';
import { sql } from '@msp/db';
import { OUTBOX_CHANNEL, type SqlExecutor } from './sql.js';

/**
 * Writes the event into the outbox inside the caller's transaction, so the change and its event
 * commit together or not at all. The NOTIFY is delivered at commit and wakes the relay at once.
 */
export async function writeOutbox<T>(
  tx: SqlExecutor,
  def: EventDefinition<T>,
  data: T,
  options: { correlationId?: string | null } = {},
): Promise<EventEnvelope<T>> {
  // Inside a request (or an event's handling) the event carries its request id as correlation id.
  const envelope = createEnvelope(def, data, options.correlationId ?? eventContext().correlationId() ?? null);
  await tx.$executeRaw(
    sql`INSERT INTO outbox_event (id, type, payload, created_at) VALUES (${envelope.id}::uuid, ${envelope.type}, ${JSON.stringify(envelope)}::jsonb, now())`,
  );
  await tx.$executeRaw(sql`SELECT pg_notify(${OUTBOX_CHANNEL}, '')`);
  return envelope;
}

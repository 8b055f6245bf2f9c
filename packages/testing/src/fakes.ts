/**
 * In-memory stand-ins for unit tests of services (`pnpm test:unit`): nothing here opens a
 * connection or imports a driver, so a unit test file stays cheap to load.
 */

/** An event a service wrote to the outbox: its type and its (schema-parsed) data. */
export interface RecordedEvent {
  type: string;
  data: unknown;
}

/**
 * A transaction client that records what `writeOutbox` (`@msp/events`) writes: each outbox
 * INSERT becomes `{ type, data }` in `events`, in order. Any other SQL is refused, so a service
 * that talks SQL outside its repository fails the test.
 */
export function outboxRecorder(): {
  tx: {
    $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
    $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  };
  events: RecordedEvent[];
  types(): string[];
} {
  const events: RecordedEvent[] = [];
  const tx = {
    $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
      if (query.startsWith('INSERT INTO outbox_event')) {
        const envelope = JSON.parse(String(values[2])) as RecordedEvent;
        events.push({ type: envelope.type, data: envelope.data });
        return Promise.resolve(1);
      }
      if (query.includes('pg_notify(')) return Promise.resolve(1);
      return Promise.reject(new Error(`unexpected SQL in a unit test: ${query}`));
    },
    $queryRawUnsafe<T = unknown>(query: string): Promise<T> {
      return Promise.reject(new Error(`unexpected SQL in a unit test: ${query}`));
    },
  };
  return { tx, events, types: () => events.map((e) => e.type) };
}

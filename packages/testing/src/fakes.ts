import type { Sql, SqlExecutor } from '@msp/db';
/**
 * In-memory stand-ins for unit tests of services (`pnpm test:unit`): nothing here opens a
 * connection or imports a driver, so a unit test file stays cheap to load.
 */

/**
 * An event a service wrote to the outbox: its type, its (schema-parsed) data and, when the
 * recorder was asked for them, its correlation id (null when the service passed none).
 */
export interface RecordedEvent {
  type: string;
  data: Record<string, unknown>;
  correlationId?: string | null;
}

/**
 * A transaction client that records what `writeOutbox` (`@msp/events`) writes: each outbox
 * INSERT becomes `{ type, data }` in `events` (`{ type, data, correlationId }` with
 * `correlationIds: true`), in order. Any other SQL is refused, so a service that talks SQL
 * outside its repository fails the test. Cast `tx` to the repository's `Tx` where a signature
 * asks for one.
 */
export function outboxRecorder(options: { correlationIds?: boolean } = {}): {
  tx: SqlExecutor;
  events: RecordedEvent[];
  types(): string[];
} {
  const events: RecordedEvent[] = [];
  const tx = {
    $executeRaw(statement: Sql): Promise<number> {
      const query = statement.text;
      if (query.startsWith('INSERT INTO outbox_event')) {
        const envelope = JSON.parse(String(statement.values[2])) as Required<RecordedEvent>;
        events.push(
          options.correlationIds
            ? { type: envelope.type, data: envelope.data, correlationId: envelope.correlationId }
            : { type: envelope.type, data: envelope.data },
        );
        return Promise.resolve(1);
      }
      if (query.includes('pg_notify(')) return Promise.resolve(1);
      return Promise.reject(new Error(`unexpected SQL in a unit test: ${query}`));
    },
    $queryRaw<T = unknown>(statement: Sql): Promise<T> {
      return Promise.reject(new Error(`unexpected SQL in a unit test: ${statement.text}`));
    },
  };
  return { tx, events, types: () => events.map((e) => e.type) };
}

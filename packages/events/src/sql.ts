/**
 * The part of a Prisma client the event machinery needs. Every service's generated client
 * satisfies it structurally, so this package does not depend on any one schema.
 */
export interface SqlExecutor {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface TransactionalClient<Tx extends SqlExecutor = SqlExecutor> extends SqlExecutor {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}

/** SQL shared by every service's migrations (Prisma models OutboxEvent and ProcessedEvent). */
export const OUTBOX_TABLE = 'outbox_event';
export const PROCESSED_TABLE = 'processed_event';
export const OUTBOX_CHANNEL = 'msp_outbox';

/**
 * The SQL types the event machinery takes (a Prisma client or its transaction, structurally) are
 * `@msp/db`'s; they are re-exported here for the services that already import them from this package.
 */
export type { SqlExecutor, TransactionalClient } from '@msp/db';

/** SQL shared by every service's migrations (Prisma models OutboxEvent and ProcessedEvent). */
export const OUTBOX_TABLE = 'outbox_event';
export const PROCESSED_TABLE = 'processed_event';
export const OUTBOX_CHANNEL = 'msp_outbox';

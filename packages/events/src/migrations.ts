import { OUTBOX_TABLE, PROCESSED_TABLE } from './sql.js';

/** A migration a package ships for every service's database: idempotent SQL, applied at each migration run. */
export interface SharedMigration {
  name: string;
  sql: string;
}

/**
 * The outbox (`writeOutbox`, the relay) and the processed-event record (`DurableConsumer`) every
 * service's database holds, as each service's init migration created them (Prisma models
 * `OutboxEvent` and `ProcessedEvent`): on those databases it changes nothing; a new service's
 * database gets them without copying the DDL (docs/projections.md "Shared tables").
 */
export const eventTablesMigration: SharedMigration = {
  name: '@msp/events:event_tables',
  sql: `
CREATE TABLE IF NOT EXISTS "${OUTBOX_TABLE}" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),
    CONSTRAINT "${OUTBOX_TABLE}_pkey" PRIMARY KEY ("id")
);
CREATE TABLE IF NOT EXISTS "${PROCESSED_TABLE}" (
    "consumer" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "${PROCESSED_TABLE}_pkey" PRIMARY KEY ("consumer","event_id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "${OUTBOX_TABLE}_seq_key" ON "${OUTBOX_TABLE}"("seq");
CREATE INDEX IF NOT EXISTS "${OUTBOX_TABLE}_published_at_seq_idx" ON "${OUTBOX_TABLE}"("published_at", "seq");
CREATE INDEX IF NOT EXISTS "${PROCESSED_TABLE}_processed_at_idx" ON "${PROCESSED_TABLE}"("processed_at");
`,
};

/** The shared migrations of @msp/events, for `migrate(url, dir, { shared })` (@msp/db). */
export const EVENTS_MIGRATIONS: readonly SharedMigration[] = [eventTablesMigration];

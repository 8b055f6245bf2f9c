/**
 * `node dist/migrate.js` (scripts/build-service.mjs bundles this entry into every service with a
 * database): the service's committed migrations (prisma/migrations next to dist/), then the
 * package migrations every service shares (@msp/events' outbox and processed-event tables).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrationCommand } from '@msp/db';
// The migrations module alone: the command loads no NATS or telemetry code.
import { EVENTS_MIGRATIONS } from '@msp/events/migrations';

// Resolved here, in the entry file (dist/migrate.js), not in a shared chunk of the bundle.
await runMigrationCommand(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../prisma/migrations'), { shared: EVENTS_MIGRATIONS });

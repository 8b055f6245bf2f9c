/**
 * `node dist/migrate.js`: creates the service's database when missing and applies its committed
 * migrations (prisma/migrations next to dist/), then exits. This is what a deployment runs once per
 * release (the Kubernetes migration Job, compose's `migrate` one-shot), so replicas start with
 * DB_AUTO_MIGRATE=false. Bundled into every service by scripts/build-service.mjs.
 * DATABASE_URL is required; MIGRATIONS_DIR overrides the folder (running from source).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareDatabase } from './prepare.js';
import { migrate } from './migrate.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('migrate: DATABASE_URL is required');
  process.exit(2);
}
const migrationsDir = process.env.MIGRATIONS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../prisma/migrations');
if (!existsSync(migrationsDir)) {
  console.error(`migrate: no migrations folder at ${migrationsDir}`);
  process.exit(2);
}
// MIGRATE_CREATE_DATABASE=false when the role may not create databases (the database exists already).
const create = process.env.MIGRATE_CREATE_DATABASE !== 'false';
try {
  const result = create ? await prepareDatabase(databaseUrl, migrationsDir) : await migrate(databaseUrl, migrationsDir);
  console.log(JSON.stringify({ level: 'info', msg: 'migrations applied', applied: result.applied, dir: migrationsDir }));
  process.exit(0);
} catch (err) {
  console.error(JSON.stringify({ level: 'error', msg: 'migration failed', err: String((err as Error)?.stack ?? err) }));
  process.exit(1);
}

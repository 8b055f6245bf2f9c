/**
 * The migration command's body: creates the service's database when missing and applies its
 * committed migrations (`migrationsDir`) and the package migrations given (`shared`), then exits.
 * The entry bundled into every service is packages/runtime/src/migrate-cli.ts (it adds
 * @msp/events' tables); scripts/build-service.mjs builds it as `dist/migrate.js`, what a deployment
 * runs once per release (the Kubernetes migration Job, compose's `migrate` one-shot), so replicas
 * start with DB_AUTO_MIGRATE=false. DATABASE_URL is required; MIGRATIONS_DIR overrides the folder.
 */
import { existsSync } from 'node:fs';
import { prepareDatabase } from './prepare.js';
import { migrate, type MigrateOptions } from './migrate.js';

export async function runMigrationCommand(defaultMigrationsDir: string, options: MigrateOptions = {}): Promise<never> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('migrate: DATABASE_URL is required');
    process.exit(2);
  }
  const migrationsDir = process.env.MIGRATIONS_DIR ?? defaultMigrationsDir;
  if (!existsSync(migrationsDir)) {
    console.error(`migrate: no migrations folder at ${migrationsDir}`);
    process.exit(2);
  }
  // MIGRATE_CREATE_DATABASE=false when the role may not create databases (the database exists already).
  const create = process.env.MIGRATE_CREATE_DATABASE !== 'false';
  try {
    const result = create ? await prepareDatabase(databaseUrl, migrationsDir, options) : await migrate(databaseUrl, migrationsDir, options);
    console.log(JSON.stringify({ level: 'info', msg: 'migrations applied', applied: result.applied, dir: migrationsDir }));
    process.exit(0);
  } catch (err) {
    console.error(JSON.stringify({ level: 'error', msg: 'migration failed', err: String((err as Error)?.stack ?? err) }));
    process.exit(1);
  }
}

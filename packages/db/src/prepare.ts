import { ensureDatabase } from './database.js';
import { migrate, type MigrateOptions, type MigrationResult } from './migrate.js';

/** Development start-up: create the service's database if needed, then apply pending migrations. */
export async function prepareDatabase(databaseUrl: string, migrationsDir: string, options: MigrateOptions = {}): Promise<MigrationResult> {
  await ensureDatabase(databaseUrl);
  return migrate(databaseUrl, migrationsDir, options);
}

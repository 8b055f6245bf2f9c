import { ensureDatabase } from './database.js';
import { migrate, type MigrationResult } from './migrate.js';

/** Development start-up: create the service's database if needed, then apply pending migrations. */
export async function prepareDatabase(databaseUrl: string, migrationsDir: string): Promise<MigrationResult> {
  await ensureDatabase(databaseUrl);
  return migrate(databaseUrl, migrationsDir);
}

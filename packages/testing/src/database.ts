import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dropDatabase, ensureDatabase, migrate, type SharedMigration } from '@msp/db';
import { testInfra } from './infra.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database as the migrator leaves it in production (`node dist/migrate.js`, or a service
 * started with DB_AUTO_MIGRATE): the service's migrations, then the package migrations every
 * service's database shares (@msp/events' outbox and processed-event tables, recorded in
 * `_msp_shared_migrations`). One per test file.
 */
export async function createTestDatabase(label: string, migrationsDir: string): Promise<TestDatabase> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const url = `${testInfra().postgresUrl}/${name}`;
  const [shared] = await Promise.all([sharedMigrationsOf(migrationsDir), ensureDatabase(url)]);
  await migrate(url, migrationsDir, { shared });
  return { url, drop: () => dropDatabase(url) };
}

/**
 * `EVENTS_MIGRATIONS` (what packages/runtime hands the migrator), read from the @msp/events of the
 * package that holds the migrations: every service with a database depends on it. @msp/testing
 * does not depend on @msp/events itself, since @msp/events' own tests use @msp/testing (a
 * workspace cycle).
 */
async function sharedMigrationsOf(migrationsDir: string): Promise<readonly SharedMigration[]> {
  let entry: string;
  try {
    entry = createRequire(path.join(path.resolve(migrationsDir), 'index.js')).resolve('@msp/events/migrations');
  } catch (error) {
    throw new Error(`createTestDatabase: no @msp/events reachable from ${migrationsDir} (the package of the migrations must depend on it)`, {
      cause: error,
    });
  }
  const { EVENTS_MIGRATIONS } = (await import(pathToFileURL(entry).href)) as { EVENTS_MIGRATIONS: readonly SharedMigration[] };
  return EVENTS_MIGRATIONS;
}

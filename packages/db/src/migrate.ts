import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/** A migration a package ships for every service's database (e.g. @msp/events' outbox tables): idempotent SQL. */
export interface SharedMigration {
  name: string;
  sql: string;
}

export interface MigrateOptions {
  /**
   * Package migrations, applied after the service's own (whose init migrations created the same
   * tables before packages shipped them: run first, the package's would make those fail on a new
   * database). Recorded in `_msp_shared_migrations`, apart from Prisma's table, so
   * `prisma migrate status` still sees only the service's folder.
   */
  shared?: readonly SharedMigration[];
}

/** Any fixed number: all migrators of the fleet serialise on it per database. */
const MIGRATION_LOCK_KEY = 72_716_001;

/**
 * Applies the committed SQL migrations of `prisma/migrations/<name>/migration.sql` in name order.
 * It keeps Prisma's own `_prisma_migrations` table (same columns, sha256 checksums), so
 * `prisma migrate status` and `prisma migrate deploy` agree with it. A PostgreSQL advisory lock
 * lets several replicas start at once; each migration runs in its own transaction.
 */
export async function migrate(databaseUrl: string, migrationsDir: string, options: MigrateOptions = {}): Promise<MigrationResult> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const applied: string[] = [];
    for (const name of names) {
      const sql = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`Migration ${name} was changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(name);
    }
    applied.push(...(await applyShared(client, options.shared ?? [])));
    return { applied, alreadyApplied: done.size };
  } finally {
    // The session lock dies with the connection closed next line; an unlock failure changes nothing.
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/** Each shared migration once per database (its checksum recorded), in its own transaction. */
async function applyShared(client: pg.Client, shared: readonly SharedMigration[]): Promise<string[]> {
  if (shared.length === 0) return [];
  await client.query(`CREATE TABLE IF NOT EXISTS "_msp_shared_migrations" (
    "name" TEXT PRIMARY KEY,
    "checksum" VARCHAR(64) NOT NULL,
    "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM "_msp_shared_migrations"');
  const done = new Map(rows.map((r) => [r.name, r.checksum]));
  const applied: string[] = [];
  for (const { name, sql } of shared) {
    const checksum = createHash('sha256').update(sql).digest('hex');
    // Idempotent SQL: a changed one runs again.
    if (done.get(name) === checksum) continue;
    await client.query('BEGIN');
    try {
      await client.query(sql);
      await client.query(
        `INSERT INTO "_msp_shared_migrations" (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [name, checksum],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw new Error(`Migration ${name} failed: ${(error as Error).message}`, { cause: error });
    }
    applied.push(name);
  }
  return applied;
}

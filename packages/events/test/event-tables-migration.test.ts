/** The outbox and processed-event tables @msp/events ships, applied by @msp/db's migrate() after a service's own. */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, ensureDatabase, migrate } from '@msp/db';
import { testInfra } from '@msp/testing';
import { EVENTS_MIGRATIONS, OUTBOX_TABLE, PROCESSED_TABLE } from '../src/index.js';

const created: string[] = [];
async function database(): Promise<string> {
  const url = `${testInfra().postgresUrl}/t_event_tables_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(url);
  created.push(url);
  return url;
}
afterAll(async () => {
  for (const url of created) await dropDatabase(url);
});

/** Columns, constraints and indexes of the two tables, as PostgreSQL describes them. */
async function eventTables(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = [OUTBOX_TABLE, PROCESSED_TABLE];
    const columns = await client.query(
      `SELECT table_name, column_name, data_type, datetime_precision, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = ANY($1) ORDER BY table_name, column_name`,
      [tables],
    );
    const indexes = await client.query('SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) ORDER BY indexname', [tables]);
    return { columns: columns.rows, indexes: indexes.rows };
  } finally {
    await client.end();
  }
}

const billingMigrations = path.resolve(import.meta.dirname, '../../../services/billing/prisma/migrations');

describe('@msp/events shared migration (outbox_event, processed_event)', () => {
  it("changes nothing on a service's database whose init migration created the tables, and runs once", async () => {
    const url = await database();
    await migrate(url, billingMigrations);
    const before = await eventTables(url);
    const first = await migrate(url, billingMigrations, { shared: EVENTS_MIGRATIONS });
    expect(first.applied).toEqual(EVENTS_MIGRATIONS.map((m) => m.name));
    expect(await eventTables(url)).toEqual(before);
    expect((await migrate(url, billingMigrations, { shared: EVENTS_MIGRATIONS })).applied).toEqual([]);
  });

  it("creates the same tables and indexes as the services' migrations on a database without them", async () => {
    const reference = await database();
    await migrate(reference, billingMigrations, { shared: EVENTS_MIGRATIONS });
    const url = await database();
    const emptyDir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    expect((await migrate(url, emptyDir, { shared: EVENTS_MIGRATIONS })).applied).toEqual(EVENTS_MIGRATIONS.map((m) => m.name));
    expect(await eventTables(url)).toEqual(await eventTables(reference));
  });
});

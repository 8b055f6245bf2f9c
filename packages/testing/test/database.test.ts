/** createTestDatabase leaves a database as the migrator does in production: the service's migrations, then the shared ones. */
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../src/index.js';

const socialMigrations = path.resolve(import.meta.dirname, '../../../services/social/prisma/migrations');

describe('createTestDatabase', () => {
  it("applies @msp/events' shared migrations after the service's own, recorded in _msp_shared_migrations", async () => {
    const db = await createTestDatabase('testing_shared_migrations', socialMigrations);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const shared = await client.query<{ name: string }>('SELECT name FROM "_msp_shared_migrations" ORDER BY name');
      expect(shared.rows.map((r) => r.name)).toEqual(['@msp/events:event_tables']);
      const tables = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('outbox_event', 'processed_event') ORDER BY 1`,
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(['outbox_event', 'processed_event']);
    } finally {
      await client.end();
      await db.drop();
    }
  });
});

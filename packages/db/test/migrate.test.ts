import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, prepareDatabase } from '../src/index.js';

const url = `${process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432'}/t_migrate_${randomBytes(4).toString('hex')}`;

afterAll(() => dropDatabase(url));

describe('prepareDatabase', () => {
  it("creates the database, applies migrations once in order, keeps Prisma's bookkeeping, and refuses edited ones", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    const write = async (name: string, sql: string) => {
      await mkdir(path.join(dir, name), { recursive: true });
      await writeFile(path.join(dir, name, 'migration.sql'), sql);
    };
    await write('20260101000000_a', 'CREATE TABLE a (id int);');
    await write('20260102000000_b', 'ALTER TABLE a ADD COLUMN name text;');
    const [first, second] = await Promise.all([prepareDatabase(url, dir), prepareDatabase(url, dir)]);
    expect([...first.applied, ...second.applied].sort()).toEqual(['20260101000000_a', '20260102000000_b']);
    expect((await prepareDatabase(url, dir)).applied).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name');
    await client.end();
    expect(rows.map((r) => r.migration_name)).toEqual(['20260101000000_a', '20260102000000_b']);
    await write('20260101000000_a', 'CREATE TABLE a (id bigint);');
    await expect(prepareDatabase(url, dir)).rejects.toThrow(/changed after it was applied/);
  });
});

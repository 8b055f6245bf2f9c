import { randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase, migrate } from '@msp/db';
import { testInfra } from './infra.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database with the service's migrations applied; one per test file. */
export async function createTestDatabase(label: string, migrationsDir: string): Promise<TestDatabase> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const url = `${testInfra().postgresUrl}/${name}`;
  await ensureDatabase(url);
  await migrate(url, migrationsDir);
  return { url, drop: () => dropDatabase(url) };
}

import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_overload', migrations);
  // One connection, a short wait for it and a short statement budget: overload is easy to make.
  app = await buildApp(
    loadCatalogConfig({
      ...env.env,
      SOCIAL_URL: 'http://127.0.0.1:1',
      DATABASE_POOL_SIZE: '1',
      DATABASE_POOL_TIMEOUT_MS: '300',
      DATABASE_STATEMENT_TIMEOUT_MS: '500',
    }),
    { logger: false },
  );
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

const get = (url: string) => app.inject({ method: 'GET', url });

function expectBusy(res: Awaited<ReturnType<typeof get>>) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(ErrorResponseSchema.parse(res.json())).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
}

describe('DSC-3 / TRK-6 / DSC-2 under overload: 503 with Retry-After, never 500', () => {
  it('answers 503 with Retry-After while every pool connection is taken (raw SQL and Prisma paths), and 200 once one is free', async () => {
    const held = await app.infra.pool.connect();
    try {
      const started = Date.now();
      expectBusy(await get('/api/search?q=midnight'));
      expectBusy(await get('/api/tracks/1'));
      expectBusy(await get('/api/resolve?url=/someone'));
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      held.release();
    }
    expect((await get('/api/search?q=midnight')).statusCode).toBe(200);
  });

  it('answers 503 with Retry-After when a statement runs past its timeout (the database holds a lock)', async () => {
    const locker = new pg.Client({ connectionString: env.env.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tracks IN ACCESS EXCLUSIVE MODE');
      expectBusy(await get('/api/search?q=midnight'));
      expectBusy(await get('/api/explore/trending'));
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect((await get('/api/explore/trending')).statusCode).toBe(200);
  });

  it('a burst of 32 concurrent searches on one connection: every answer is 200 or 503, none 500', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 32 }, (_, i) => get(`/api/search?q=${i % 2 ? 'nigth' : 'love'}&type=ALL`).then((r) => r.statusCode)),
    );
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
  });
});

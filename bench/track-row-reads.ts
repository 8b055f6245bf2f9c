/**
 * What a list read of 20 tracks costs catalog and PostgreSQL with and without the row cache (a
 * micro-benchmark, not a test), on the data of `bench/seed.ts`:
 *
 *   npx tsx bench/track-row-reads.ts        # BENCH_READS (3000) reads per case, 3 rounds
 *
 * One pg connection; per case the CPU of this process (`process.cpuUsage`) and of its PostgreSQL
 * backend (/proc) divided by the reads. Cases: a track by id (one full row); 20 tracks in order
 * with the cache off (`TrackReadsRepository(pool, 0)`: the page's versions, then 20 full rows, what
 * a page of changed tracks costs); the same with the cache warm (the versions only).
 */
import { cpuMs } from './proc-stats.ts';
import { createPgPool } from '../packages/db/src/index.ts';
import { TrackReadsRepository } from '../services/catalog/src/modules/tracks/track-reads.repository.ts';

const PG = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const READS = Number(process.env.BENCH_READS ?? 3000);
const pool = createPgPool(process.env.CATALOG_DATABASE_URL ?? `${PG}/bench_catalog`, 1);
const ids = (await pool.query<{ id: number }>('SELECT id FROM tracks WHERE id % 997 = 5 ORDER BY id LIMIT 20')).rows.map((r) => r.id);
const backend = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

/** CPU of the connection's PostgreSQL backend in ms. */
const backendCpuMs = () => cpuMs(backend);

async function measure(label: string, read: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 300; i++) await read();
  const [cpu0, pg0] = [process.cpuUsage(), backendCpuMs()];
  for (let i = 0; i < READS; i++) await read();
  const cpu = process.cpuUsage(cpu0);
  const pgUs = ((backendCpuMs() - pg0) * 1000) / READS;
  console.log(`${label.padEnd(40)} catalog ${((cpu.user + cpu.system) / READS).toFixed(0).padStart(4)} µs   PostgreSQL ${pgUs.toFixed(0).padStart(4)} µs`);
}

const cached = new TrackReadsRepository(pool);
const uncached = new TrackReadsRepository(pool, 0);
for (let round = 1; round <= 3; round++) {
  console.log(`round ${round}, ${READS} reads per case`);
  await measure('track by id (one full row)', () => cached.byId(ids[0]!, 0));
  await measure('20 in order, cache off (versions + rows)', () => uncached.inOrder(ids, 0));
  await measure('20 in order, cache warm (versions only)', () => cached.inOrder(ids, 0));
}
await pool.end();

import { createPgPool } from '../packages/db/src/index.ts';
import { DiscoveryRepository } from '../services/catalog/src/modules/discovery/discovery.repository.ts';
import { TrackReadsRepository } from '../services/catalog/src/modules/tracks/track-reads.repository.ts';
import { searchTerms } from '../services/catalog/src/modules/discovery/search-query.ts';
import { postgresCpu } from './proc-stats.ts';
const pool = createPgPool('postgresql://postgres@127.0.0.1:5432/bench_catalog', 1);
const repo = new DiscoveryRepository({} as never, new TrackReadsRepository(pool), pool);
const letters = 'abcdefghijklmnopqrstuvwxyz';
for (const kinds of [['TRACK'], ['USER'], ['PLAYLIST'], ['TRACK', 'USER', 'PLAYLIST']] as const) {
  for (let i = 0; i < 8; i++) await repo.search(searchTerms(letters[i % 26]!)!, kinds, 100000, null, 0, 20);
  const c0 = await postgresCpu(); const t0 = Date.now();
  const N = 60;
  for (let i = 0; i < N; i++) await repo.search(searchTerms(letters[i % 26]!)!, kinds, 100000, null, 0, 20);
  const c1 = await postgresCpu();
  const { rows } = await pool.query(`SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'catalog_search_%' ORDER BY name`);
  console.log(kinds.join(','), 'PG CPU ms/search', ((c1 - c0) / N).toFixed(2), 'wall', ((Date.now() - t0) / N).toFixed(1), JSON.stringify(rows.map((r) => [r.generic_plans, r.custom_plans])));
}
await pool.end();

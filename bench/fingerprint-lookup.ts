/**
 * Duplicate lookup among 1,000,000 stored fingerprints (a benchmark, not a test).
 *
 *   npx tsx bench/fingerprint-lookup.ts [--tracks 1000000] [--reseed] [--corpus DIR]
 *
 * The database `msp_bench_fingerprint_lookup` (local PostgreSQL, media-processing's migrations) is
 * seeded once and kept: later runs only measure (`--reseed` starts again).
 *
 * Seed: `--tracks` synthetic tracks of 2–5 min (uniform). Each gets the index rows a real track of
 * that length gets — one entry per 32 sub-fingerprints, the keys drawn from the 24-bit keys of level
 * 5 (the only ones a track over ~2 min stores), positions spread over the track — and a
 * `track_fingerprint` row of the right size. 5 % of the entries use one of 512 "popular" keys
 * (about 5,000 tracks each), as silence or a common loop would. Real tracks are added on top:
 * fingerprints from the quality corpus (bench/fingerprint-quality.ts `--cache DIR`, required here):
 * 40 "long" tracks, each the fingerprints of 5 pieces end to end (3–4 min), and 20 short pieces.
 *
 * Lookups (the worker's `findMatch`: bounded index reads, then verification of the best
 * candidates), 200 of each, after a warm-up:
 *   - long-match: the MP3 copy of a stored long track (same 5 pieces' MP3 fingerprints);
 *   - long-nomatch: 5 pieces that are not stored;
 *   - short-match: the AAC copy of a stored short piece;
 *   - popular: a query whose every key is a popular one (each probe reads its full quota).
 * Prints p50 / p95 / p99 in milliseconds per kind (wall time in this process, so it includes the
 * machine's load), whether each answer was right, and the candidate query's execution time inside
 * PostgreSQL (EXPLAIN ANALYZE, 50 per kind) with the index entries it read.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgPool, ensureDatabase, migrate, pgSqlExecutor } from '../packages/db/src/index.ts';
import { testInfra } from '../packages/testing/src/index.ts';
import { fingerprintFromBytes } from '../services/media-processing/src/fingerprint/fingerprint.ts';
import {
  CANDIDATE_ROWS,
  candidatesSql,
  FingerprintRepository,
  MAX_KEY_ENTRIES,
  type FingerprintDb,
} from '../services/media-processing/src/fingerprint/fingerprint.repository.ts';
import { findMatch } from '../services/media-processing/src/fingerprint/fingerprint.service.ts';
import { indexKeys, KEY_BITS, MAX_LEVEL, queryKeys } from '../services/media-processing/src/fingerprint/matcher.ts';

const migrations = fileURLToPath(new URL('../services/media-processing/prisma/migrations', import.meta.url));
const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const TRACKS = Number(arg('--tracks') ?? 1_000_000);
const RESEED = args.includes('--reseed');
const CORPUS = arg('--corpus') ?? '/tmp/msp-fp-corpus';
const RUNS = 200;
const ITEMS_PER_SECOND = 11_025 / 1365;
const REAL_BASE = 10_000_000;
const DB_URL = `${testInfra().postgresUrl}/msp_bench_fingerprint_lookup`;

const VARIANTS = ['mp3-128k', 'aac-96k'] as const;
type Piece = { source: Uint32Array; 'mp3-128k': Uint32Array; 'aac-96k': Uint32Array };

/** Up to `max` pieces of the quality corpus (as many as it holds). */
async function loadCorpus(max: number): Promise<Piece[]> {
  const out: Piece[] = [];
  for (let id = 1; id <= 2000 && out.length < max; id++) {
    const file = path.join(CORPUS, `piece-${id}`, 'fingerprints.json');
    if (!existsSync(file)) continue;
    const json = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const decode = (k: string) => fingerprintFromBytes(Buffer.from(json[k] ?? '', 'base64'));
    out.push({ source: decode('source'), 'mp3-128k': decode(VARIANTS[0]), 'aac-96k': decode(VARIANTS[1]) });
  }
  if (out.length < 20) throw new Error(`only ${out.length} pieces in ${CORPUS}; run bench/fingerprint-quality.ts --cache ${CORPUS} first`);
  return out;
}

function concat(parts: Uint32Array[]): Uint32Array {
  const out = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function seed(pg: ReturnType<typeof createPgPool>): Promise<void> {
  const started = Date.now();
  const level = `(k::bigint * 2654435761) % 4294967296 < ${2 ** (32 - MAX_LEVEL)}`;
  console.log(`seeding ${TRACKS} synthetic tracks …`);
  await pg.query(`TRUNCATE fingerprint_hash, track_fingerprint, fingerprint_match`);
  await pg.query(`ALTER TABLE fingerprint_hash DROP CONSTRAINT IF EXISTS fingerprint_hash_pkey`);
  // The keys of level 5, numbered: the insert draws a number and joins (a hash join, no per-row lookup).
  await pg.query(`DROP TABLE IF EXISTS bench_keys; CREATE UNLOGGED TABLE bench_keys AS
    SELECT (row_number() OVER (ORDER BY k) - 1)::int AS i, k::int AS k FROM generate_series(0, ${2 ** KEY_BITS - 1}) k WHERE ${level}`);
  const { rows: keyCount } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM bench_keys`);
  const n = keyCount[0]?.n ?? 0;
  await pg.query(`DROP TABLE IF EXISTS bench_tracks; CREATE UNLOGGED TABLE bench_tracks AS
    SELECT t AS id, (floor((120 + random() * 180) * ${ITEMS_PER_SECOND}) - 19)::int AS items FROM generate_series(1, ${TRACKS}) t`);
  const batch = 100_000;
  for (let from = 1; from <= TRACKS; from += batch) {
    await pg.query(
      `SET LOCAL synchronous_commit = off;
       INSERT INTO fingerprint_hash (hash, track_id, pos)
       SELECT k.k, r.id, r.pos
       FROM (SELECT t.id, g * 32 + floor(random() * 32)::int AS pos,
                    CASE WHEN random() < 0.05 THEN hashint4(t.id + g) & 511 ELSE floor(random() * ${n})::int END AS i
             FROM bench_tracks t CROSS JOIN LATERAL generate_series(0, t.items / 32 - 1) g
             WHERE t.id >= ${from} AND t.id < ${from + batch}) r
       JOIN bench_keys k ON k.i = r.i`,
    );
    await pg.query(
      `INSERT INTO track_fingerprint (track_id, upload_id, attempt, items, fingerprint, index_hashes, index_positions)
       SELECT t.id, gen_random_uuid(), 1, t.items, decode(repeat(md5(t.id::text), t.items / 4), 'hex'), '{}', '{}'
       FROM bench_tracks t WHERE t.id >= $1 AND t.id < $2`,
      [from, from + batch],
    );
    console.log(`  ${Math.min(TRACKS, from + batch - 1)} tracks (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  console.log('  primary key …');
  await pg.query(`SET maintenance_work_mem = '1GB'`);
  await pg.query(`ALTER TABLE fingerprint_hash ADD CONSTRAINT fingerprint_hash_pkey PRIMARY KEY (hash, track_id, pos)`);
  console.log('  vacuum analyze …');
  await pg.query(`VACUUM ANALYZE fingerprint_hash`);
  await pg.query(`VACUUM ANALYZE track_fingerprint`);
  await pg.query(`CREATE TABLE IF NOT EXISTS bench_seed (tracks int)`);
  await pg.query(`DELETE FROM bench_seed; INSERT INTO bench_seed VALUES (${TRACKS})`);
  console.log(`seeded in ${Math.round((Date.now() - started) / 1000)} s`);
}

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function main() {
  await ensureDatabase(DB_URL);
  await migrate(DB_URL, migrations);
  const pg = createPgPool(DB_URL, 4);
  const db: FingerprintDb = pgSqlExecutor(pg);
  const repo = new FingerprintRepository({ ...db, $transaction: (work) => work(db) });
  try {
    const seeded = await pg.query<{ tracks: number }>(`SELECT tracks FROM bench_seed`).catch(() => ({ rows: [] as { tracks: number }[] }));
    if (RESEED || seeded.rows[0]?.tracks !== TRACKS) await seed(pg);

    // 270 pieces: 40 long stored tracks, 10 long absent ones, 20 short stored pieces (fewer, in proportion, from a smaller corpus).
    const pieces = await loadCorpus(270);
    const shortCount = Math.min(20, Math.floor(pieces.length / 10));
    const absentGroups = Math.min(10, Math.max(1, Math.floor(pieces.length / 27)));
    const storedGroups = Math.min(40, Math.floor((pieces.length - shortCount - absentGroups * 5) / 5));
    const longStored = Array.from({ length: storedGroups }, (_, g) => pieces.slice(g * 5, g * 5 + 5));
    const longAbsent = Array.from({ length: absentGroups }, (_, g) => pieces.slice((storedGroups + g) * 5, (storedGroups + g) * 5 + 5));
    const shortStored = pieces.slice((storedGroups + absentGroups) * 5, (storedGroups + absentGroups) * 5 + shortCount);
    console.log(`real tracks: ${storedGroups} long stored, ${absentGroups} long absent, ${shortCount} short stored (from ${pieces.length} corpus pieces)`);
    await pg.query(`DELETE FROM fingerprint_hash WHERE track_id >= ${REAL_BASE}`);
    await pg.query(`DELETE FROM track_fingerprint WHERE track_id >= ${REAL_BASE}`);
    const stored: { id: number; fp: Uint32Array }[] = [
      ...longStored.map((g, i) => ({ id: REAL_BASE + i, fp: concat(g.map((p) => p.source)) })),
      ...shortStored.map((p, i) => ({ id: REAL_BASE + 1000 + i, fp: p.source })),
    ];
    for (const s of stored) await repo.store(db, { trackId: s.id, uploadId: '00000000-0000-4000-8000-000000000000', attempt: 1 }, s.fp, indexKeys(s.fp));

    const { rows: counts } = await pg.query<{ rows: string; tracks: string }>(
      `SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'fingerprint_hash')::text AS rows,
              (SELECT count(*) FROM track_fingerprint)::text AS tracks`,
    );
    const { rows: sizes } = await pg.query<{ heap: string; pk: string; fps: string }>(
      `SELECT pg_size_pretty(pg_relation_size('fingerprint_hash')) AS heap, pg_size_pretty(pg_relation_size('fingerprint_hash_pkey')) AS pk,
              pg_size_pretty(pg_total_relation_size('track_fingerprint')) AS fps`,
    );
    console.log(
      `stored: ${counts[0]?.tracks} fingerprints, ~${counts[0]?.rows} index rows (heap ${sizes[0]?.heap}, primary key ${sizes[0]?.pk}; track_fingerprint ${sizes[0]?.fps})`,
    );

    const { rows: popular } = await pg.query<{ k: number }>(`SELECT k FROM bench_keys WHERE i < 512 ORDER BY i`);
    const popularKeys = popular.map((r) => r.k);
    const popularQuery = Uint32Array.from({ length: 2000 }, (_, i) => ((popularKeys[Math.floor(i / 4) % popularKeys.length] ?? 0) << (32 - KEY_BITS)) >>> 0);

    type Kind = { name: string; queries: { fp: Uint32Array; expect: number | null }[] };
    const kinds: Kind[] = [
      { name: 'long-match', queries: longStored.map((g, i) => ({ fp: concat(g.map((p) => p['mp3-128k'])), expect: REAL_BASE + i })) },
      { name: 'long-nomatch', queries: longAbsent.map((g) => ({ fp: concat(g.map((p) => p['mp3-128k'])), expect: null })) },
      { name: 'short-match', queries: shortStored.map((p, i) => ({ fp: p['aac-96k'], expect: REAL_BASE + 1000 + i })) },
      { name: 'popular', queries: [{ fp: popularQuery, expect: null }] },
    ];
    for (const kind of kinds) for (const q of kind.queries.slice(0, 5)) await findMatch(repo, db, q.fp, null); // warm-up
    console.log(`\nlookup among ${counts[0]?.tracks} stored fingerprints, ${RUNS} lookups per kind (ms):`);
    const all: number[] = [];
    for (const kind of kinds) {
      const times: number[] = [];
      let right = 0;
      for (let i = 0; i < RUNS; i++) {
        const q = kind.queries[i % kind.queries.length];
        if (!q) continue;
        const t0 = performance.now();
        const match = await findMatch(repo, db, q.fp, null);
        times.push(performance.now() - t0);
        if ((match?.trackId ?? null) === q.expect) right++;
      }
      all.push(...times);
      console.log(
        `  ${kind.name.padEnd(13)} p50 ${quantile(times, 0.5).toFixed(1).padStart(6)}  p95 ${quantile(times, 0.95).toFixed(1).padStart(6)}  p99 ${quantile(times, 0.99).toFixed(1).padStart(6)}   right ${right}/${RUNS}`,
      );
    }
    console.log(`\ncandidate query inside PostgreSQL (EXPLAIN ANALYZE, 50 per kind; ms, index entries read):`);
    for (const kind of kinds) {
      const times: number[] = [];
      let entries = 0;
      for (let i = 0; i < 50; i++) {
        const q = kind.queries[i % kind.queries.length];
        if (!q) continue;
        const keys = queryKeys(q.fp);
        const candidates = candidatesSql(keys, null);
        const { rows } = await pg.query<{ 'QUERY PLAN': [{ 'Execution Time': number; Plan: unknown }] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${candidates.text}`,
          candidates.values,
        );
        const plan = rows[0]?.['QUERY PLAN'][0];
        times.push(plan?.['Execution Time'] ?? 0);
        const scan =
          JSON.stringify(plan?.Plan ?? {}).match(/"Relation Name":"fingerprint_hash"[^}]*?"Actual Rows":(\d+)[^}]*?"Actual Loops":(\d+)/) ??
          JSON.stringify(plan?.Plan ?? {}).match(/"Index Name":"fingerprint_hash_pkey".*?"Actual Rows":(\d+),"Actual Loops":(\d+)/);
        if (scan) entries += Number(scan[1]) * Number(scan[2]);
      }
      console.log(
        `  ${kind.name.padEnd(13)} p50 ${quantile(times, 0.5).toFixed(1).padStart(6)}  p95 ${quantile(times, 0.95).toFixed(1).padStart(6)}   entries/lookup ${Math.round(entries / 50)}`,
      );
    }
    console.log(
      `\n  ${'all'.padEnd(13)} p50 ${quantile(all, 0.5).toFixed(1).padStart(6)}  p95 ${quantile(all, 0.95).toFixed(1).padStart(6)}  p99 ${quantile(all, 0.99).toFixed(1).padStart(6)}`,
    );
  } finally {
    await pg.end();
  }
}

await main();

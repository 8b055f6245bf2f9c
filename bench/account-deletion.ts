/**
 * Account deletion of a large user across the fleet (a benchmark, not a test; docs/account-control.md).
 *
 *   npx tsx bench/account-deletion.ts
 *
 * Boots the whole fleet (tests/e2e's `Fleet`: databases `e2e_*`, its own NATS and object storage),
 * seeds a user with BENCH_TRACKS tracks (default 200), BENCH_LIKES likes given (10,000) and
 * BENCH_COMMENTS comments (1,000) — one real upload, the rest cloned by SQL in catalog and social —
 * deletes the user with ACC-5 and polls the databases until every service has removed the user's
 * rows. Meanwhile another user writes through the gateway every BENCH_WRITE_EVERY_MS (50): a like,
 * an unlike, a comment in turn; the report gives their latency (goal: max ≤ 1 s) and the time to
 * done (goal ≤ 60 s). Small scale for a busy machine: BENCH_TRACKS=20 BENCH_LIKES=1000 BENCH_COMMENTS=100.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { createPgPool } from '../packages/db/src/index.ts';
import { waitFor } from '../packages/testing/src/index.ts';
import { Fleet } from '../tests/e2e/test/fleet.ts';

const TRACKS = Number(process.env.BENCH_TRACKS ?? 200);
const LIKES = Number(process.env.BENCH_LIKES ?? 10_000);
const COMMENTS = Number(process.env.BENCH_COMMENTS ?? 1000);
const WRITE_EVERY_MS = Number(process.env.BENCH_WRITE_EVERY_MS ?? 50);
const DONE_TIMEOUT_MS = Number(process.env.BENCH_DONE_TIMEOUT_MS ?? 300_000);
const PASSWORD = 'a long enough secret';
const execFileAsync = promisify(execFile);

interface User {
  userId: number;
  username: string;
  token: string;
}

const fleet = new Fleet();
const pools = new Map<string, pg.Pool>();
const db = (service: string) => {
  let pool = pools.get(service);
  if (!pool) pools.set(service, (pool = createPgPool(fleet.env(service as 'identity').DATABASE_URL!, 2)));
  return pool;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const identityApp = () => fleet.apps.get('identity') as any;

async function sign(userId: number, username: string, role = 'ARTIST'): Promise<string> {
  return identityApp().keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function call(method: string, url: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fleet.fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

async function register(tag: string): Promise<User> {
  const email = `bench-del-${tag}-${randomUUID().slice(0, 6)}@example.com`;
  const res = await call('POST', '/api/auth/register/local', null, { email, displayName: `Bench ${tag}`, password: PASSWORD, dateOfBirth: '1990-02-03' });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  const { userId, username } = res.body as { userId: number; username: string };
  return { userId, username, token: await sign(userId, username) };
}

async function uploadTrack(user: User, wav: string): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title: 'Bench track', genre: 'Electronic', uploadId: randomUUID() })) form.append(k, v);
  form.append('audioFile', new Blob([await readFile(wav)]), 'tone.wav');
  const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
  const body = (await res.json()) as { id: number };
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
  await waitFor(async () => (await call('GET', `/api/tracks/${body.id}/status`, user.token)).body.status === 'FINISHED', {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  // Social's copy of the track arrives by event.
  await waitFor(async () => (await db('social').query('SELECT 1 FROM track_refs WHERE track_id = $1', [body.id])).rowCount === 1, { timeoutMs: 20_000 });
  return body.id;
}

/** Copies one row `n` times with some columns replaced by SQL expressions of `g` (1…n). */
async function cloneRows(pool: pg.Pool, table: string, where: string, params: unknown[], n: number, overrides: Record<string, string>, returning: string) {
  const { rows: cols } = await pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  const names = cols.map((c) => c.column_name).filter((c) => c !== 'id' || 'id' in overrides);
  const select = names.map((c) => (c in overrides ? overrides[c] : `"${c}"`)).join(', ');
  const sql = `INSERT INTO "${table}" (${names.map((c) => `"${c}"`).join(', ')})
    SELECT ${select} FROM "${table}", generate_series(1, ${n}) AS g WHERE ${where} RETURNING ${returning}`;
  return (await pool.query(sql, params)).rows;
}

async function seed(victim: User, writer: User, wav: string) {
  const real = await uploadTrack(victim, wav);
  const writerTrack = await uploadTrack(writer, wav);
  const t0 = Date.now();
  // Catalog: the victim's other tracks (the same media objects), and social's copies of them.
  const clones = (await cloneRows(
    db('catalog'),
    'tracks',
    'id = $1',
    [real],
    TRACKS - 1,
    { track_slug: `track_slug || '-c' || g`, secret_token: `md5(random()::text || g)`, upload_id: 'gen_random_uuid()' },
    'id',
  )) as Array<{ id: number }>;
  const ids = clones.map((r) => r.id);
  await db('social').query(
    `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, held_back, access, duration_seconds, cover_url, genre, published_at, created_at)
     SELECT t.id, r.artist_id, r.title, r.track_slug || '-c' || t.id, r.state, r.is_private, r.held_back, r.access, r.duration_seconds, r.cover_url, r.genre, r.published_at, r.created_at
       FROM track_refs r, unnest($2::int[]) AS t(id) WHERE r.track_id = $1`,
    [real, ids],
  );
  // Social: LIKES likes given by the victim (to tracks of the writer, copies in social only), and
  // COMMENTS comments on the writer's real track.
  await db('social').query(
    `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, held_back, access, duration_seconds, cover_url, genre, published_at, created_at)
     SELECT 50000000 + g, r.artist_id, r.title, r.track_slug || '-l' || g, r.state, r.is_private, r.held_back, r.access, r.duration_seconds, r.cover_url, r.genre, r.published_at, r.created_at
       FROM track_refs r, generate_series(1, $2::int) AS g WHERE r.track_id = $1 ON CONFLICT DO NOTHING`,
    [writerTrack, LIKES],
  );
  await db('social').query(`INSERT INTO track_likes (user_id, track_id) SELECT $1, 50000000 + g FROM generate_series(1, $2::int) AS g ON CONFLICT DO NOTHING`, [
    victim.userId,
    LIKES,
  ]);
  await db('social').query(`UPDATE track_refs SET like_count = 1 WHERE track_id > 50000000 AND track_id <= 50000000 + $1`, [LIKES]);
  await db('social').query(`INSERT INTO comments (track_id, user_id, body) SELECT $1, $2, 'bench comment ' || g FROM generate_series(1, $3::int) AS g`, [
    writerTrack,
    victim.userId,
    COMMENTS,
  ]);
  await db('social').query(`UPDATE track_refs SET comment_count = comment_count + $2 WHERE track_id = $1`, [writerTrack, COMMENTS]);
  return { writerTrack, seedMs: Date.now() - t0 };
}

/** What each service still holds of the victim (the polled "done" of the benchmark). */
async function remaining(userId: number): Promise<Record<string, number>> {
  const count = async (service: string, sql: string) => Number((await db(service).query<{ n: string }>(sql, [userId])).rows[0]!.n);
  return {
    identity: await count('identity', 'SELECT count(*) AS n FROM users WHERE id = $1'),
    catalogTracks: await count('catalog', 'SELECT count(*) AS n FROM tracks WHERE artist_id = $1'),
    socialLikes: await count('social', 'SELECT count(*) AS n FROM track_likes WHERE user_id = $1'),
    socialComments: await count('social', 'SELECT count(*) AS n FROM comments WHERE user_id = $1'),
    socialTrackRefs: await count('social', 'SELECT count(*) AS n FROM track_refs WHERE artist_id = $1'),
    socialSummary: await count('social', 'SELECT count(*) AS n FROM user_summaries WHERE user_id = $1'),
    catalogSummary: await count('catalog', 'SELECT count(*) AS n FROM user_summaries WHERE user_id = $1'),
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-deletion-'));
  // The writer makes 20 requests a second: above the default per-user budget of the gateway.
  await fleet.start({ RATE_LIMIT_USER_PER_MINUTE: '100000', RATE_LIMIT_CLIENT_PER_MINUTE: '100000' });
  try {
    const ffmpeg = (fleet.apps.get('media-processing') as unknown as { media: { ffmpeg: { path: string } } }).media.ffmpeg.path;
    const wav = path.join(dir, 'tone.wav');
    await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000:duration=2', '-y', wav]);
    const [victim, writer] = [await register('victim'), await register('writer')];
    const { writerTrack, seedMs } = await seed(victim, writer, wav);
    console.log(`seeded ${TRACKS} tracks, ${LIKES} likes, ${COMMENTS} comments in ${seedMs} ms:`, await remaining(victim.userId));

    // The other user's writes through the gateway, every WRITE_EVERY_MS, during the deletion.
    const latencies: number[] = [];
    const failures: string[] = [];
    let writing = true;
    let step = 0;
    const writes = (async () => {
      while (writing) {
        const started = performance.now();
        const kind = step++ % 3;
        const res =
          kind === 0
            ? await call('POST', `/api/tracks/${writerTrack}/like`, writer.token)
            : kind === 1
              ? await call('DELETE', `/api/tracks/${writerTrack}/like`, writer.token)
              : await call('POST', `/api/tracks/${writerTrack}/comments`, writer.token, { body: `write ${step}` });
        const ms = performance.now() - started;
        latencies.push(ms);
        if (res.status >= 300) failures.push(`${res.status} ${String(res.body.code)}`);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, WRITE_EVERY_MS - ms)));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a baseline second of writes
    const baseline = latencies.length;

    const admin = await sign(990_400, 'bench-admin', 'ADMIN');
    const t0 = performance.now();
    const res = await call('DELETE', `/api/admin/users/${victim.userId}`, admin);
    if (res.status !== 202) throw new Error(`ACC-5: ${res.status} ${JSON.stringify(res.body)}`);
    const doneAt: Record<string, number> = {};
    let left: Record<string, number> = {};
    try {
      await waitFor(
        async () => {
          left = await remaining(victim.userId);
          for (const [k, v] of Object.entries(left)) if (v === 0 && doneAt[k] === undefined) doneAt[k] = Math.round(performance.now() - t0);
          return Object.values(left).every((v) => v === 0);
        },
        { timeoutMs: DONE_TIMEOUT_MS, intervalMs: 250 },
      );
    } catch {
      console.log('NOT DONE within the timeout; left:', left);
    }
    const totalMs = Math.round(performance.now() - t0);
    writing = false;
    await writes;
    const during = latencies.slice(baseline).sort((a, b) => a - b);
    const before = latencies.slice(0, baseline).sort((a, b) => a - b);
    console.log(
      JSON.stringify(
        {
          scale: { tracks: TRACKS, likes: LIKES, comments: COMMENTS },
          doneMs: totalMs,
          doneAtMsPerPart: doneAt,
          otherUserWrites: {
            everyMs: WRITE_EVERY_MS,
            baseline: { n: before.length, p50: Math.round(percentile(before, 50)), max: Math.round(before.at(-1) ?? 0) },
            duringDeletion: {
              n: during.length,
              p50: Math.round(percentile(during, 50)),
              p99: Math.round(percentile(during, 99)),
              max: Math.round(during.at(-1) ?? 0),
            },
            failures: failures.slice(0, 10),
          },
          loadavg: os.loadavg().map((l) => l.toFixed(2)),
        },
        null,
        1,
      ),
    );
  } finally {
    await Promise.allSettled([...pools.values()].map((p) => p.end()));
    await fleet.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

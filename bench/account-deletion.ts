/**
 * Account deletion of a large user across the fleet (a benchmark, not a test; docs/account-control.md).
 *
 *   npx tsx bench/account-deletion.ts
 *
 * Boots the whole fleet (tests/e2e's `Fleet`: databases `e2e_*`, its own NATS and object storage),
 * seeds a user with BENCH_TRACKS tracks (default 200), BENCH_LIKES likes given (10,000) and
 * BENCH_COMMENTS comments (1,000) — one real upload per artist, the rest cloned by SQL in catalog
 * and social. The likes are on as many tracks of another artist (the writer below), each with
 * its catalog copy (track row, engagement, day counter), so the deletion recounts 10,000 counters
 * in social and takes 10,000 likes out of catalog's trending; the comments are on the writer's
 * tracks; BENCH_LIKES_ON_OWN (25) others like each of the user's tracks. Then deletes the user with
 * ACC-5 and polls the seven databases until none holds the user's rows. Meanwhile the writer
 * likes, unlikes and comments through the gateway every BENCH_WRITE_EVERY_MS (50), in turn on
 * BENCH_PROBE_TRACKS (20) of the tracks the user liked and commented on, spread over their ids:
 * the very counter rows the deletion locks and recounts, in the same tables. The report gives
 * the writes' p50/p95/max before the deletion (BENCH_BASELINE_MS, 5 s) and during it (goal: max
 * ≤ 1 s), the time until gone from every service (goal ≤ 60 s), and checks the recounted like
 * and comment counts of the probed tracks against their rows.
 * Small scale for a busy machine: BENCH_TRACKS=20 BENCH_LIKES=1000 BENCH_COMMENTS=100.
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
const LIKES_ON_OWN = Number(process.env.BENCH_LIKES_ON_OWN ?? 25);
const PROBE_TRACKS = Number(process.env.BENCH_PROBE_TRACKS ?? 20);
const WRITE_EVERY_MS = Number(process.env.BENCH_WRITE_EVERY_MS ?? 50);
const BASELINE_MS = Number(process.env.BENCH_BASELINE_MS ?? 5000);
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

/** Social's copies of catalog tracks `ids`, from the copy of `source`. */
async function copyTrackRefs(source: number, ids: number[]) {
  await db('social').query(
    `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, held_back, access, duration_seconds, cover_url, genre, published_at, created_at)
     SELECT t.id, r.artist_id, r.title, r.track_slug || '-c' || t.id, r.state, r.is_private, r.held_back, r.access, r.duration_seconds, r.cover_url, r.genre, r.published_at, r.created_at
       FROM track_refs r, unnest($2::int[]) AS t(id) WHERE r.track_id = $1 ON CONFLICT DO NOTHING`,
    [source, ids],
  );
}

/** Likes of `users` on `tracks` in social and in catalog's copies (engagement, today's counter, the shown count). */
async function like(users: number[], tracks: number[]) {
  const pairs = `unnest($1::int[]) AS u(id) CROSS JOIN unnest($2::int[]) AS t(id)`;
  await db('social').query(`INSERT INTO track_likes (user_id, track_id) SELECT u.id, t.id FROM ${pairs} ON CONFLICT DO NOTHING`, [users, tracks]);
  await db('social').query(
    `UPDATE track_refs r SET like_count = (SELECT count(*) FROM track_likes l WHERE l.track_id = r.track_id) WHERE r.track_id = ANY($1::int[])`,
    [tracks],
  );
  await db('catalog').query(
    `INSERT INTO track_engagements (kind, user_id, track_id, created_at) SELECT 'L', u.id, t.id, now() FROM ${pairs} ON CONFLICT DO NOTHING`,
    [users, tracks],
  );
  await db('catalog').query(
    `INSERT INTO track_daily_stats (track_id, day, likes) SELECT t.id, (now() AT TIME ZONE 'UTC')::date, $2::int FROM unnest($1::int[]) AS t(id)
     ON CONFLICT (track_id, day) DO UPDATE SET likes = track_daily_stats.likes + EXCLUDED.likes`,
    [tracks, users.length],
  );
  await db('catalog').query(`UPDATE tracks SET like_count = like_count + $2 WHERE id = ANY($1::int[])`, [tracks, users.length]);
}

async function seed(victim: User, writer: User, wav: string) {
  const real = await uploadTrack(victim, wav);
  const writerTrack = await uploadTrack(writer, wav);
  const t0 = Date.now();
  const clone = async (source: number, n: number, tag: string) =>
    (
      (await cloneRows(
        db('catalog'),
        'tracks',
        'id = $1',
        [source],
        n,
        { track_slug: `track_slug || '-${tag}' || g`, secret_token: `md5(random()::text || g)`, upload_id: 'gen_random_uuid()' },
        'id',
      )) as Array<{ id: number }>
    ).map((r) => r.id);
  // Catalog: the victim's other tracks (the same media objects), and social's copies of them.
  const own = [real, ...(await clone(real, TRACKS - 1, 'c'))];
  await copyTrackRefs(real, own.slice(1));
  // Another artist's (the writer's) tracks the victim liked, in catalog and social.
  const liked = [writerTrack, ...(await clone(writerTrack, LIKES - 1, 'l'))];
  await copyTrackRefs(writerTrack, liked.slice(1));
  await like([victim.userId], liked);
  // Others (ids no account has: the rows are all that counts) like each of the victim's tracks.
  await like(
    Array.from({ length: LIKES_ON_OWN }, (_, i) => 70_000_000 + i),
    own,
  );
  // The tracks the writer writes on during the deletion, spread over the liked ids (the deletion
  // goes through them in id order); the comments go on them too.
  const probes = Array.from({ length: Math.min(PROBE_TRACKS, liked.length) }, (_, i) => liked[Math.floor((i * liked.length) / PROBE_TRACKS)]!);
  await db('social').query(
    `INSERT INTO comments (track_id, user_id, body) SELECT ($1::int[])[1 + g % cardinality($1::int[])], $2, 'bench comment ' || g FROM generate_series(1, $3::int) AS g`,
    [probes, victim.userId, COMMENTS],
  );
  await db('social').query(
    `UPDATE track_refs r SET comment_count = (SELECT count(*) FROM comments c WHERE c.track_id = r.track_id) WHERE r.track_id = ANY($1::int[])`,
    [probes],
  );
  return { probes, ownTracks: own, seedMs: Date.now() - t0 };
}

/** Probed tracks whose shown like or comment count differs from their rows (social), once the deletion is done. */
async function countMismatches(probes: number[]): Promise<number> {
  const { rows } = await db('social').query<{ n: number }>(
    `SELECT count(*)::int AS n FROM track_refs r
      WHERE r.track_id = ANY($1::int[])
        AND (r.like_count <> (SELECT count(*) FROM track_likes l WHERE l.track_id = r.track_id)
             OR r.comment_count <> (SELECT count(*) FROM comments c WHERE c.track_id = r.track_id))`,
    [probes],
  );
  return rows[0]!.n;
}

/** What each service still holds of the victim (the polled "done" of the benchmark). */
async function remaining(userId: number, ownTracks: number[]): Promise<Record<string, number>> {
  const count = async (service: string, sql: string, params: unknown[] = [userId]) => Number((await db(service).query<{ n: string }>(sql, params)).rows[0]!.n);
  return {
    identity: await count('identity', 'SELECT count(*) AS n FROM users WHERE id = $1'),
    catalogTracks: await count('catalog', 'SELECT count(*) AS n FROM tracks WHERE artist_id = $1'),
    catalogLikes: await count('catalog', 'SELECT count(*) AS n FROM track_engagements WHERE user_id = $1'),
    catalogLikesOnOwn: await count('catalog', 'SELECT count(*) AS n FROM track_engagements WHERE track_id = ANY($1::int[])', [ownTracks]),
    catalogSummary: await count('catalog', 'SELECT count(*) AS n FROM user_summaries WHERE user_id = $1'),
    socialLikes: await count('social', 'SELECT count(*) AS n FROM track_likes WHERE user_id = $1'),
    socialComments: await count('social', 'SELECT count(*) AS n FROM comments WHERE user_id = $1'),
    socialLikesOnOwn: await count('social', 'SELECT count(*) AS n FROM track_likes WHERE track_id = ANY($1::int[])', [ownTracks]),
    socialTrackRefs: await count('social', 'SELECT count(*) AS n FROM track_refs WHERE artist_id = $1'),
    socialSummary: await count('social', 'SELECT count(*) AS n FROM user_summaries WHERE user_id = $1'),
    mediaJobs: await count('media-processing', 'SELECT count(*) AS n FROM jobs WHERE artist_id = $1'),
    messagingSummary: await count('messaging', 'SELECT count(*) AS n FROM user_summaries WHERE user_id = $1'),
    notificationSummary: await count('notification', 'SELECT count(*) AS n FROM user_summaries WHERE user_id = $1'),
    billingCustomer: await count('billing', 'SELECT count(*) AS n FROM billing_customers WHERE user_id = $1'),
  };
}

const stats = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: Math.round(percentile(sorted, 50)),
    p95: Math.round(percentile(sorted, 95)),
    max: Math.round(sorted.at(-1) ?? 0),
    over1s: sorted.filter((ms) => ms > 1000).length,
  };
};

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
    const { probes, ownTracks, seedMs } = await seed(victim, writer, wav);
    console.log(`seeded ${TRACKS} tracks, ${LIKES} likes, ${COMMENTS} comments in ${seedMs} ms:`, await remaining(victim.userId, ownTracks));

    // The other user's writes through the gateway, every WRITE_EVERY_MS, before and during the
    // deletion: like, unlike, comment on one probed track, then the next one.
    const latencies: number[] = [];
    const failures: string[] = [];
    let writing = true;
    let step = 0;
    const writes = (async () => {
      while (writing) {
        const started = performance.now();
        const kind = step % 3;
        const track = probes[Math.floor(step / 3) % probes.length]!;
        step += 1;
        const res =
          kind === 0
            ? await call('POST', `/api/tracks/${track}/like`, writer.token)
            : kind === 1
              ? await call('DELETE', `/api/tracks/${track}/like`, writer.token)
              : await call('POST', `/api/tracks/${track}/comments`, writer.token, { body: `write ${step}` });
        const ms = performance.now() - started;
        latencies.push(ms);
        if (res.status >= 300) failures.push(`${res.status} ${String(res.body.code)}`);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, WRITE_EVERY_MS - ms)));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
    const baseline = latencies.length;
    const loadBefore = os.loadavg().map((l) => l.toFixed(2));

    const admin = await sign(990_400, 'bench-admin', 'ADMIN');
    const t0 = performance.now();
    const res = await call('DELETE', `/api/admin/users/${victim.userId}`, admin);
    if (res.status !== 202) throw new Error(`ACC-5: ${res.status} ${JSON.stringify(res.body)}`);
    const doneAt: Record<string, number> = {};
    let left: Record<string, number> = {};
    try {
      await waitFor(
        async () => {
          left = await remaining(victim.userId, ownTracks);
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
    // The recount events of the last batches may still be on their way: the counts settle at once in social.
    const mismatches = await countMismatches(probes);
    console.log(
      JSON.stringify(
        {
          scale: { tracks: TRACKS, likes: LIKES, comments: COMMENTS, likesOnOwnTracks: LIKES_ON_OWN * TRACKS, probedTracks: probes.length },
          doneMs: totalMs,
          doneAtMsPerPart: doneAt,
          otherUserWrites: {
            everyMs: WRITE_EVERY_MS,
            beforeDeletion: stats(latencies.slice(0, baseline)),
            duringDeletion: stats(latencies.slice(baseline)),
            failures: failures.slice(0, 10),
          },
          probedCountsWrong: mismatches,
          loadavg: { before: loadBefore, after: os.loadavg().map((l) => l.toFixed(2)) },
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

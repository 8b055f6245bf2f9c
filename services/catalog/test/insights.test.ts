import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ArtistInsightsSchema, TrackInsightsSchema } from '@msp/contracts';
import { createEnvelope, UserBanned, UserFollowed, UserUnbanned } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';
import { InsightsRepository } from '../src/modules/insights/insights.repository.js';
import { dayNames, monthSplit } from '../src/modules/insights/utc-days.js';
import { PlayCounting } from '../src/modules/insights/play-counting.js';
import { PlayLogRepository } from '../src/modules/insights/play-log.repository.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

const ARTIST = 7000;
const as = (userId: number, role = 'LISTENER') => ({ 'x-user-id': String(userId), 'x-user-role': role, 'x-username': `u${userId}` });
const ADMIN = as(7900, 'ADMIN');
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

/** The UTC date `ago` days before today (YYYY-MM-DD). */
const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);

async function user(userId: number, isPrivate = false) {
  await app.infra.prisma.userSummary.create({ data: { userId, username: `u${userId}`, displayName: `User ${userId}`, isPrivate, role: 'ARTIST' } });
}

async function tracks(count: number, artistId = ARTIST): Promise<number[]> {
  const rows = Array.from({ length: count }, () => {
    const slug = `i-${randomUUID().slice(0, 12)}`;
    return {
      artistId,
      title: slug,
      trackSlug: slug,
      genre: 'Jazz',
      releaseDate: new Date('2026-01-01T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED' as const,
      durationSeconds: 100,
    };
  });
  const created = await app.infra.prisma.track.createManyAndReturn({ data: rows, select: { id: true } });
  return created.map((t) => t.id).sort((a, b) => a - b);
}

type Listener = { userId?: number; ip?: string; ua?: string };
async function play(trackId: number, who: Listener, source?: string, kind: 'play' | 'complete' = 'play') {
  const headers: Record<string, string> = { 'user-agent': who.ua ?? BROWSER, 'x-forwarded-for': who.ip ?? '10.0.0.1' };
  if (who.userId) Object.assign(headers, as(who.userId));
  const res = await app.inject({ method: 'POST', url: `/api/tracks/${trackId}/${kind}`, headers, payload: source ? { source } : {} });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toEqual({ message: expect.any(String) });
  return { message: (res.json() as { message: string }).message, playId: String(res.headers['x-play-id']) };
}

async function trackInsights(trackId: number, query = '', headers: Record<string, string> = as(ARTIST, 'ARTIST')) {
  const res = await app.inject({ method: 'GET', url: `/api/insights/tracks/${trackId}${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return TrackInsightsSchema.strict().parse(res.json());
}

async function artistInsights(query = '') {
  const res = await app.inject({ method: 'GET', url: `/api/insights/me${query}`, headers: as(ARTIST, 'ARTIST') });
  expect(res.statusCode, res.body).toBe(200);
  return ArtistInsightsSchema.strict().parse(res.json());
}

/**
 * A track's counted plays as the Track record shows them: `tracks` plus the pending plays the
 * service folds into it every second (track_play_deltas, docs/insights.md).
 */
const COUNTS = `FROM tracks t LEFT JOIN track_play_deltas d ON d.track_id = t.id`;
const PLAYS = `(t.play_count + coalesce(d.plays, 0))`;
const playCount = async (trackId: number) =>
  (
    await app.infra.pool.query<{ playCount: number; completedPlayCount: number }>(
      `SELECT ${PLAYS}::int AS "playCount", (t.completed_play_count + coalesce(d.completions, 0))::int AS "completedPlayCount" ${COUNTS} WHERE t.id = $1`,
      [trackId],
    )
  ).rows[0]!;

const today = () => new Date().toISOString().slice(0, 10);

let t1: number;
let floodTracks: number[];

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_insights', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env }), { logger: false });
  await app.ready();
  await user(ARTIST);
  await user(7001);
  await user(7002, true);
  await user(7003);
  t1 = (await tracks(1))[0]!;
  floodTracks = await tracks(70);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('TRK-17 TRK-18 INS-1 INS-2 honest play counting', () => {
  it('logs every play and counts exactly what the rules allow', async () => {
    // Two listeners (one private), an anonymous client, a bot and a repeat within the R9 window.
    expect((await play(t1!, { userId: 7001 }, 'app')).message).toBe('Play counted.');
    expect((await play(t1!, { userId: 7001 }, 'search')).message).toBe('Play already counted.');
    expect((await play(t1!, { userId: 7002 }, 'playlist')).message).toBe('Play counted.');
    expect((await play(t1!, { ip: '10.9.9.9' }, 'embed')).message).toBe('Play counted.');
    expect((await play(t1!, { ip: '10.9.9.8', ua: BOT }, 'embed')).message).toBe('Play already counted.');
    expect((await play(t1!, { userId: 7001 }, undefined, 'complete')).message).toBe('Completed play counted.');
    // A listener playing 70 different tracks in well under a minute: the first 60 count.
    for (const id of floodTracks) await play(id, { userId: 7003 }, 'station');

    expect(await playCount(t1!)).toEqual({ playCount: 3, completedPlayCount: 1 });
    const flood = await app.infra.pool.query<{ counted: number; flagged: number }>(
      `SELECT sum(${PLAYS})::int AS counted, (SELECT count(*)::int FROM play_events WHERE listener_id = 7003 AND flag = 'flood') AS flagged
         ${COUNTS} WHERE t.id = ANY($1)`,
      [floodTracks],
    );
    expect(flood.rows[0]).toEqual({ counted: 60, flagged: 10 });

    const log = await app.infra.pool.query<{ kind: string; flag: string | null; n: number; raw: number }>(
      `SELECT kind, flag, count(*)::int AS n, count(*) FILTER (WHERE client_hash LIKE '%10.9%')::int AS raw FROM play_events WHERE track_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [t1],
    );
    expect(log.rows).toEqual([
      { kind: 'C', flag: null, n: 1, raw: 0 },
      { kind: 'P', flag: 'bot', n: 1, raw: 0 },
      { kind: 'P', flag: 'repeat', n: 1, raw: 0 },
      { kind: 'P', flag: null, n: 3, raw: 0 },
    ]);

    const insights = await trackInsights(t1!);
    expect(insights.totals).toEqual({ plays: 3, completions: 1, likes: 0, reposts: 0, comments: 0, downloads: 0 });
    expect(insights.series).toHaveLength(30);
    expect(insights.series.at(-1)).toMatchObject({ period: today(), plays: 3, completions: 1 });
    expect(insights.sources).toEqual([
      { source: 'app', plays: 1 },
      { source: 'embed', plays: 1 },
      { source: 'playlist', plays: 1 },
    ]);
    const hourly = await trackInsights(t1!, '?granularity=hour');
    expect(hourly.series).toHaveLength(48);
    expect(hourly.series.at(-1)).toMatchObject({ plays: 3, completions: 1 });

    // JSON and CSV agree, line for line.
    const csv = await app.inject({ method: 'GET', url: `/api/insights/tracks/${t1}`, headers: { ...as(ARTIST, 'ARTIST'), accept: 'text/csv' } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('period,plays,completions,likes,reposts,comments,downloads');
    expect(lines.slice(1)).toEqual(insights.series.map((r) => [r.period, r.plays, r.completions, r.likes, r.reposts, r.comments, r.downloads].join(',')));

    const me = await artistInsights();
    expect(me.totals).toMatchObject({ plays: 63, completions: 1 });
    expect(me.topTracks[0]).toMatchObject({ trackId: t1, plays: 3 });
    expect(me.topTracks).toHaveLength(10);
    // The private listener (7002) is not named; the flooder's 60 counted plays are.
    expect(me.topListeners).toEqual([
      { username: 'u7003', displayName: 'User 7003', plays: 60 },
      { username: 'u7001', displayName: 'User 7001', plays: 1 },
    ]);
    const meCsv = await app.inject({ method: 'GET', url: '/api/insights/me', headers: { ...as(ARTIST, 'ARTIST'), accept: 'text/csv' } });
    expect(meCsv.body.trim().split('\n').at(-1)).toBe(`${today()},63,1,0,0,0,0,0,0`);
  });

  it('flags a listener sweeping more distinct tracks an hour than the limit', async () => {
    const counting = new PlayCounting(app.infra.redis, { dedupSeconds: 30, floodPerMinute: 60, sweepTracksPerHour: 3 });
    const who = `u-sweep-${randomUUID()}`;
    const verdicts = [];
    for (const trackId of [1, 2, 3, 4, 4]) verdicts.push(await counting.judge({ kind: 'play', trackId, who, userAgent: BROWSER, now: new Date() }));
    expect(verdicts).toEqual([null, null, null, 'sweep', 'sweep']);
  });

  it('refuses an unknown source with a field error', async () => {
    const res = await app.inject({ method: 'POST', url: `/api/tracks/${t1}/play`, headers: as(7001), payload: { source: 'radio' } });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('source');
  });
});

describe('INS-3 void plays', () => {
  it('recounts playCount, rollups and the series from the log at once, and is audited', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await app.inject({
      method: 'POST',
      url: '/api/admin/plays/void',
      headers: ADMIN,
      payload: { listenerId: 7003, from, to, reason: 'scripted flood' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ voided: 70, uncounted: 60 });
    const counted = await app.infra.pool.query<{ n: number }>(`SELECT sum(${PLAYS})::int AS n ${COUNTS} WHERE t.id = ANY($1)`, [floodTracks]);
    expect(counted.rows[0]!.n).toBe(0);
    const me = await artistInsights();
    expect(me.totals.plays).toBe(3);
    expect(me.topListeners.map((l) => l.username)).toEqual(['u7001']);
    const days = await app.infra.pool.query<{ n: number }>(`SELECT coalesce(sum(plays), 0)::int AS n FROM track_play_days WHERE track_id = ANY($1)`, [
      floodTracks,
    ]);
    expect(days.rows[0]!.n).toBe(0);
    const months = await app.infra.pool.query<{ n: number }>(`SELECT coalesce(sum(plays), 0)::int AS n FROM track_play_months WHERE track_id = ANY($1)`, [
      floodTracks,
    ]);
    expect(months.rows[0]!.n).toBe(0);
    const audit = await waitFor(async () =>
      (await app.infra.prisma.adminAudit.findMany({ where: { action: { contains: 'INS-3' } } })).find((a) => a.reason === 'scripted flood'),
    );
    expect(audit.details).toMatchObject({ listenerId: 7003, status: 200 });

    // Voiding again (or voiding nothing) answers zero.
    const again = await app.inject({ method: 'POST', url: '/api/admin/plays/void', headers: ADMIN, payload: { listenerId: 7003, from, to, reason: 'again' } });
    expect(again.json()).toMatchObject({ voided: 0, uncounted: 0 });
    const bad = await app.inject({ method: 'POST', url: '/api/admin/plays/void', headers: ADMIN, payload: { from, to, reason: 'x' } });
    expect(bad.statusCode).toBe(400);
    const notAdmin = await app.inject({
      method: 'POST',
      url: '/api/admin/plays/void',
      headers: as(7001),
      payload: { listenerId: 7003, from, to, reason: 'x' },
    });
    expect(notAdmin.statusCode).toBe(403);
  });

  it('R14: a banned listener stops counting and counts again after the unban', async () => {
    await publish(createEnvelope(UserBanned, { userId: 7001, reason: 'spam', bannedAt: new Date().toISOString() }));
    await waitFor(async () => (await playCount(t1!)).playCount === 2, { timeoutMs: 15_000 });
    expect((await trackInsights(t1!)).totals).toMatchObject({ plays: 2, completions: 0 });
    await publish(createEnvelope(UserUnbanned, { userId: 7001 }));
    await waitFor(async () => (await playCount(t1!)).playCount === 3, { timeoutMs: 15_000 });
    expect((await trackInsights(t1!)).totals).toMatchObject({ plays: 3, completions: 1 });
  });

  it('counts follower gains per day from follow events', async () => {
    await publish(
      createEnvelope(UserFollowed, { followerId: 7001, followeeId: ARTIST, followerFollowingCount: 1, followeeFollowerCount: 1, at: new Date().toISOString() }),
    );
    await waitFor(async () => (await artistInsights()).totals.followersGained === 1, { timeoutMs: 15_000 });
  });
});

describe('INS-4 listening progress', () => {
  it('turns progress events of three plays into the retention curve they imply', async () => {
    const [t3] = await tracks(1);
    const a = await play(t3!, { userId: 7101 });
    await play(t3!, { userId: 7102 });
    const c = await play(t3!, { ip: '10.1.1.1' });
    const progress = async (headers: Record<string, string>, payload: object) => {
      const res = await app.inject({ method: 'POST', url: `/api/tracks/${t3}/progress`, headers: { 'user-agent': BROWSER, ...headers }, payload });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { accepted: number; ignored: number };
    };
    // Play A reaches the end (and beyond: clamped), B a quarter (its latest play, no id), C three quarters in a batch.
    await progress(as(7101), { position: 10, playId: a.playId });
    await progress(as(7101), { position: 50, playId: a.playId });
    await progress(as(7101), { position: 150, playId: a.playId });
    await progress(as(7102), { position: 25 });
    expect(
      await progress(
        { 'x-forwarded-for': '10.1.1.1' },
        {
          events: [
            { position: 5, playId: c.playId },
            { position: 75, duration: 100, playId: c.playId },
            { position: 50, playId: '999999999' },
          ],
        },
      ),
    ).toEqual({ accepted: 2, ignored: 1 });
    const { retention } = await trackInsights(t3!);
    expect(retention.plays).toBe(3);
    expect(retention.points).toHaveLength(100);
    const expected = retention.points.map(({ percent }) => ({ percent, share: percent <= 25 ? 1 : percent <= 75 ? 0.6667 : 0.3333 }));
    expect(retention.points).toEqual(expected);
  });
});

describe('INS-1 INS-2 access and ranges', () => {
  it('answers 404 to other users, 401 to anonymous callers and lets admins read', async () => {
    const other = await app.inject({ method: 'GET', url: `/api/insights/tracks/${t1}`, headers: as(7001) });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('TRACK_NOT_FOUND');
    expect((await app.inject({ method: 'GET', url: `/api/insights/tracks/${t1}` })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/insights/tracks/999999', headers: as(ARTIST, 'ARTIST') })).statusCode).toBe(404);
    await trackInsights(t1!, '', ADMIN);
  });

  it('refuses bad ranges with field errors', async () => {
    const bad = async (url: string) => {
      const res = await app.inject({ method: 'GET', url, headers: as(ARTIST, 'ARTIST') });
      expect(res.statusCode, url).toBe(400);
      return (res.json() as { errors?: Array<{ field: string }> }).errors?.map((e) => e.field);
    };
    expect(await bad(`/api/insights/tracks/${t1}?from=2026-03-02&to=2026-03-01`)).toEqual(['from']);
    expect(await bad(`/api/insights/tracks/${t1}?from=2023-01-01&to=2026-01-01`)).toEqual(['to']);
    expect(await bad(`/api/insights/tracks/${t1}?from=yesterday`)).toEqual(['from']);
    expect(await bad(`/api/insights/tracks/${t1}?from=%2B200000-01-01T00:00:00Z&to=%2B200000-01-02T00:00:00Z`)).toEqual(['to', 'from']);
    expect(await bad(`/api/insights/tracks/${t1}?granularity=hour&from=${new Date(Date.now() - 3 * 86_400_000).toISOString()}`)).toEqual(['from']);
    expect(await bad(`/api/insights/me?from=2026-03-02&to=2026-03-01`)).toEqual(['from']);
    expect(await bad(`/api/insights/me?from=2020-01-01&to=2026-01-01`)).toEqual(['to']);
    const ok = await app.inject({ method: 'GET', url: `/api/insights/me?from=2025-01-01&to=2026-12-31`, headers: as(ARTIST, 'ARTIST') });
    expect(ok.statusCode).toBe(200);
  });
});

describe('TRK-17 TRK-18 group commit of concurrent plays', () => {
  it('writes concurrent plays in shared statements and keeps every counting rule across a batch', async () => {
    const artist = 7100;
    await user(artist);
    await user(7151);
    await user(7152);
    const [hot, ...many] = await tracks(71, artist);
    // At once: one listener playing one track 20 times (R9: one counts), 40 anonymous listeners
    // playing it (all count), a completion by each signed-in listener, and a listener playing 70
    // different tracks (the first 60 by arrival count: flood).
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => play(hot!, { userId: 7151 }, 'app')),
      ...Array.from({ length: 40 }, (_, i) => play(hot!, { ip: `10.77.0.${i + 1}` }, 'embed')),
      play(hot!, { userId: 7151 }, undefined, 'complete'),
      play(hot!, { userId: 7152 }, undefined, 'complete'),
      ...many.map((id) => play(id, { userId: 7152 }, 'station')),
    ]);
    expect(results.slice(0, 20).filter((r) => r.message === 'Play counted.')).toHaveLength(1);
    expect(results.slice(20, 60).every((r) => r.message === 'Play counted.')).toBe(true);
    expect(new Set(results.map((r) => r.playId)).size).toBe(results.length);
    expect(await playCount(hot!)).toEqual({ playCount: 41, completedPlayCount: 2 });

    const db = app.infra.pool;
    const log = await db.query<{ plays: number; counted: number; statements: number; flood: number }>(
      `SELECT count(*)::int AS plays, count(*) FILTER (WHERE flag IS NULL AND NOT held AND void_id IS NULL)::int AS counted,
              count(DISTINCT xmin::text)::int AS statements, count(*) FILTER (WHERE flag = 'flood')::int AS flood
         FROM play_events WHERE artist_id = $1`,
      [artist],
    );
    expect(log.rows[0]).toMatchObject({ plays: 132, counted: 41 + 2 + 60, flood: 10 });
    // Grouped: far fewer statements (transactions) than plays.
    expect(log.rows[0]!.statements).toBeLessThan(132 / 4);
    const rollups = await db.query<{ days: number; months: number; artist: number; hours: number; stats: number; statsCompletions: number; counters: number }>(
      `SELECT (SELECT sum(plays + completions)::int FROM track_play_days d JOIN tracks t ON t.id = d.track_id WHERE t.artist_id = $1) AS days,
              (SELECT sum(plays + completions)::int FROM track_play_months m JOIN tracks t ON t.id = m.track_id WHERE t.artist_id = $1) AS months,
              (SELECT sum(plays + completions)::int FROM artist_play_days WHERE artist_id = $1) AS artist,
              (SELECT sum(plays + completions)::int FROM track_play_hours h JOIN tracks t ON t.id = h.track_id WHERE t.artist_id = $1) AS hours,
              (SELECT sum(plays)::int FROM track_daily_stats s JOIN tracks t ON t.id = s.track_id WHERE t.artist_id = $1) AS stats,
              (SELECT sum(completions)::int FROM track_daily_stats s JOIN tracks t ON t.id = s.track_id WHERE t.artist_id = $1) AS "statsCompletions",
              (SELECT sum(${PLAYS} + t.completed_play_count + coalesce(d.completions, 0))::int ${COUNTS} WHERE t.artist_id = $1) AS counters`,
      [artist],
    );
    expect(rollups.rows[0]).toEqual({ days: 103, months: 103, artist: 103, hours: 103, stats: 101, statsCompletions: 2, counters: 103 });
    // The Track record (TRK-6) shows the exact counts before the fold, and after it.
    const record = async () => (await app.inject({ method: 'GET', url: `/api/tracks/${hot}` })).json() as { playCount: number; completedPlayCount: number };
    expect(await record()).toMatchObject({ playCount: 41, completedPlayCount: 2 });
    // The fold moves the pending counts into `tracks` (counts and trending scores) and leaves none behind.
    await new PlayLogRepository(db).foldCounts();
    const folded = await db.query<{ counters: number; trending: number; pending: number }>(
      `SELECT sum(play_count + completed_play_count)::int AS counters, sum(trending_score)::int AS trending,
              (SELECT count(*)::int FROM track_play_deltas d JOIN tracks x ON x.id = d.track_id WHERE x.artist_id = $1) AS pending
         FROM tracks WHERE artist_id = $1`,
      [artist],
    );
    expect(folded.rows[0]).toEqual({ counters: 103, trending: 101, pending: 0 });
    expect(await record()).toMatchObject({ playCount: 41, completedPlayCount: 2 });
  });
});

describe('INS-2 top listeners at scale', () => {
  it("finds the same top listeners by all-time plays as by summing every listener's days, for long and short ranges", async () => {
    const artist = 7200;
    const listeners = Array.from({ length: 450 }, (_, i) => 720_001 + i);
    await app.infra.prisma.userSummary.createMany({
      data: listeners.map((id, i) => ({ userId: id, username: `l${id}`, displayName: `L ${id}`, isPrivate: i % 7 === 0, isBanned: i % 11 === 0 })),
    });
    // Old plays (a year ago) favour one set of listeners, recent ones (the last 30 days) another.
    await app.infra.pool.query(
      `INSERT INTO artist_listener_days (artist_id, day, listener_id, plays)
       SELECT $1, (now() AT TIME ZONE 'UTC')::date - d, l, p FROM (
         SELECT d, l, CASE WHEN d < 30 THEN (l * 7 + d * 13) % 5 ELSE (l % 17) * (d % 3) END AS p
           FROM generate_series(0, 400, 1) d, unnest($2::int[]) l WHERE d < 30 OR d BETWEEN 300 AND 330) x WHERE p > 0`,
      [artist, listeners],
    );
    await app.infra.pool.query(
      `INSERT INTO artist_listener_totals (artist_id, listener_id, plays) SELECT artist_id, listener_id, sum(plays) FROM artist_listener_days WHERE artist_id = $1 GROUP BY 1, 2`,
      [artist],
    );
    const repo = new InsightsRepository(app.infra.pool);
    for (const [from, to] of [
      [day(400), day(0)],
      [day(29), day(0)],
      [day(3), day(1)],
      [day(330), day(300)],
      [day(320), day(10)],
    ] as const) {
      const expected = await repo.topListenersBySum(artist, from, to);
      expect(expected.length, `${from}..${to}`).toBe(10);
      expect(await repo.topListeners(artist, from, to), `${from}..${to}`).toEqual(expected);
    }
    // The same bound for top tracks (all-time playCount), over the group-commit test's artist.
    for (const [from, to] of [
      [day(400), day(0)],
      [day(3), day(1)],
    ] as const) {
      expect(await repo.topTracks(7100, from, to), `${from}..${to}`).toEqual(await repo.topTracksBySum(7100, monthSplit(from, to)));
    }
    expect((await repo.topTracks(7100, day(400), day(0)))[0]).toMatchObject({ plays: 41 });
    const res = await app.inject({ method: 'GET', url: `/api/insights/me?from=${day(400)}&to=${day(0)}`, headers: as(artist, 'ARTIST') });
    expect(res.json().topListeners).toEqual(await repo.topListenersBySum(artist, day(400), day(0)));
  });
});

describe('INS-1 INS-2 ranges over whole months', () => {
  it('cuts a range into the days before, the whole months and the days after', () => {
    expect(monthSplit('2026-01-15', '2026-04-10')).toEqual({
      from: '2026-01-15',
      headTo: '2026-02-01',
      monthFrom: '2026-02-01',
      monthTo: '2026-04-01',
      tailFrom: '2026-04-01',
      to: '2026-04-10',
    });
    // Whole months at both ends; a range inside one month; a range across one boundary only; a leap day.
    expect(monthSplit('2026-02-01', '2026-03-31')).toMatchObject({
      headTo: '2026-02-01',
      monthFrom: '2026-02-01',
      monthTo: '2026-04-01',
      tailFrom: '2026-04-01',
    });
    expect(monthSplit('2026-03-05', '2026-03-20')).toMatchObject({
      headTo: '2026-03-21',
      monthFrom: '2026-04-01',
      monthTo: '2026-03-01',
      tailFrom: '2026-04-01',
    });
    expect(monthSplit('2026-03-05', '2026-04-02')).toMatchObject({
      headTo: '2026-04-01',
      monthFrom: '2026-04-01',
      monthTo: '2026-04-01',
      tailFrom: '2026-04-01',
    });
    expect(monthSplit('2024-02-29', '2024-02-29')).toMatchObject({
      headTo: '2024-03-01',
      monthFrom: '2024-03-01',
      monthTo: '2024-03-01',
      tailFrom: '2024-03-01',
    });
    expect(monthSplit('2025-12-01', '2025-12-31')).toMatchObject({ headTo: '2025-12-01', monthFrom: '2025-12-01', monthTo: '2026-01-01' });
  });

  it('names the days of a range across months, years and a leap day', () => {
    expect(dayNames('2024-02-27', 4)).toEqual(['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01']);
    expect(dayNames('2025-12-30', 3)).toEqual(['2025-12-30', '2025-12-31', '2026-01-01']);
    const year = dayNames('2025-03-01', 731);
    expect(year).toEqual(Array.from({ length: 731 }, (_, i) => new Date(Date.UTC(2025, 2, 1 + i)).toISOString().slice(0, 10)));
  });

  it("sums each track's range from its months and days exactly as from its days alone", async () => {
    const artist = 7400;
    await user(artist);
    const ids = await tracks(12, artist);
    const db = app.infra.pool;
    // 500 days of uneven plays (counted plays of the day rollups), the month rollup summed from them as the play log keeps it.
    await db.query(
      `INSERT INTO track_daily_stats (track_id, day, plays)
       SELECT t, (now() AT TIME ZONE 'UTC')::date - d, (t * 31 + d * 17) % 23 FROM unnest($1::int[]) t, generate_series(0, 499) d WHERE (t + d) % 5 <> 0`,
      [ids],
    );
    await db.query(
      `INSERT INTO track_play_months (track_id, month, source, plays)
       SELECT track_id, date_trunc('month', day)::date, '', sum(plays) FROM track_daily_stats WHERE track_id = ANY($1) GROUP BY 1, 2`,
      [ids],
    );
    await db.query(
      `UPDATE tracks t SET play_count = s.n FROM (SELECT track_id, sum(plays)::int AS n FROM track_daily_stats GROUP BY 1) s WHERE s.track_id = t.id AND t.id = ANY($1)`,
      [ids],
    );
    const repo = new InsightsRepository(db);
    for (const [a, b] of [
      [499, 0],
      [365, 0],
      [200, 170],
      [40, 38],
      [120, 61],
      [0, 0],
    ] as const) {
      const [from, to] = [day(a), day(b)];
      const bySum = await db.query<{ trackId: number; plays: number }>(
        `SELECT track_id AS "trackId", sum(plays)::int AS plays FROM track_daily_stats
          WHERE track_id = ANY($1) AND day BETWEEN $2::date AND $3::date GROUP BY 1 HAVING sum(plays) > 0 ORDER BY 2 DESC, 1 LIMIT 10`,
        [ids, from, to],
      );
      const got = await repo.topTracks(artist, from, to);
      expect(
        got.map(({ trackId, plays }) => ({ trackId, plays })),
        `${from}..${to}`,
      ).toEqual(bySum.rows);
      expect(
        (await repo.topTracksBySum(artist, monthSplit(from, to))).map(({ trackId, plays }) => ({ trackId, plays })),
        `${from}..${to}`,
      ).toEqual(bySum.rows);
    }
  });
});

describe('INS-1 series and sources from the day and month rollups', () => {
  it("gives the series and plays by source that the track's day-and-source rows imply, over any range", async () => {
    const artist = 7500;
    await user(artist);
    const [track] = await tracks(1, artist);
    const db = app.infra.pool;
    // 450 days of plays and completions by source, and the day and month rollups as the play log keeps them.
    await db.query(
      `INSERT INTO track_play_days (track_id, day, source, plays, completions)
       SELECT $1, (now() AT TIME ZONE 'UTC')::date - d, s, (d * 7 + length(s) * 3) % 11, (d + length(s)) % 3
         FROM generate_series(0, 449) d, unnest(ARRAY['', 'app', 'embed', 'search']) s WHERE (d + length(s)) % 4 <> 0`,
      [track],
    );
    await db.query(
      `INSERT INTO track_play_months (track_id, month, source, plays, completions)
       SELECT track_id, date_trunc('month', day)::date, source, sum(plays), sum(completions) FROM track_play_days WHERE track_id = $1 GROUP BY 1, 2, 3`,
      [track],
    );
    await db.query(
      `INSERT INTO track_daily_stats (track_id, day, plays, completions, likes)
       SELECT track_id, day, sum(plays), sum(completions), 1 FROM track_play_days WHERE track_id = $1 GROUP BY 1, 2`,
      [track],
    );
    const repo = new InsightsRepository(db);
    for (const [a, b] of [
      [449, 0],
      [364, 0],
      [200, 140],
      [33, 31],
      [0, 0],
    ] as const) {
      const [from, to] = [day(a), day(b)];
      const report = (await repo.trackDayReport(track!, from, to))!;
      const expected = await db.query<{ source: string; plays: number }>(
        `SELECT source, sum(plays)::int AS plays FROM track_play_days WHERE track_id = $1 AND day BETWEEN $2::date AND $3::date
          GROUP BY 1 HAVING sum(plays) > 0 ORDER BY 2 DESC, 1`,
        [track, from, to],
      );
      expect(report.sources, `${from}..${to}`).toEqual(expected.rows);
      const days = await db.query<{ period: string; plays: number; completions: number }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS period, sum(plays)::int AS plays, sum(completions)::int AS completions
           FROM track_play_days WHERE track_id = $1 AND day BETWEEN $2::date AND $3::date GROUP BY day`,
        [track, from, to],
      );
      const byDay = new Map(days.rows.map((d) => [d.period, d]));
      expect(report.series.length).toBe(a - b + 1);
      for (const row of report.series) {
        expect({ plays: row.plays, completions: row.completions }, row.period).toEqual({
          plays: byDay.get(row.period)?.plays ?? 0,
          completions: byDay.get(row.period)?.completions ?? 0,
        });
      }
    }
  });
});

describe('INS-2 daily engagement', () => {
  it("sums trending's day counters of the artist's tracks per day, whoever changes them (artist_engagement_days)", async () => {
    const artist = 7300;
    await user(artist);
    const [a, b, c] = await tracks(3, artist);
    const [elsewhere] = await tracks(1, 7001);
    const db = app.infra.pool;
    // As bumpStat writes them (social's likes, reposts, comments; taken back never below zero).
    const bump = (track: number, ago: number, column: 'likes' | 'reposts' | 'comments', delta: number) =>
      db.query(
        `INSERT INTO track_daily_stats (track_id, day, ${column}) VALUES ($1, $2::date, GREATEST($3, 0))
         ON CONFLICT (track_id, day) DO UPDATE SET ${column} = GREATEST(track_daily_stats.${column} + $3, 0)`,
        [track, day(ago), delta],
      );
    await bump(a!, 0, 'likes', 3);
    await bump(b!, 0, 'likes', 2);
    await bump(b!, 0, 'reposts', 1);
    await bump(c!, 5, 'comments', 4);
    await bump(c!, 5, 'comments', -6); // clamped: the day's counter goes from 4 to 0
    await bump(a!, 9, 'reposts', 2);
    await bump(elsewhere!, 0, 'likes', 5);
    // The play log's upsert sets plays only.
    await db.query(
      `INSERT INTO track_daily_stats (track_id, day, plays) VALUES ($1, $2::date, 1) ON CONFLICT (track_id, day) DO UPDATE SET plays = track_daily_stats.plays + 1`,
      [a, day(9)],
    );
    // Account deletion's bulk update and a counter row removed.
    await db.query(`UPDATE track_daily_stats SET likes = GREATEST(likes - 1, 0) WHERE track_id = ANY($1::int[]) AND day = $2::date`, [[a, b], day(0)]);
    await db.query(`DELETE FROM track_daily_stats WHERE track_id = $1 AND day = $2::date`, [a, day(9)]);
    await bump(a!, 20, 'comments', 1);

    const expected = await db.query<{ period: string; likes: number; reposts: number; comments: number }>(
      `SELECT to_char(s.day, 'YYYY-MM-DD') AS period, sum(s.likes)::int AS likes, sum(s.reposts)::int AS reposts, sum(s.comments)::int AS comments
         FROM track_daily_stats s JOIN tracks t ON t.id = s.track_id WHERE t.artist_id = $1 GROUP BY s.day`,
      [artist],
    );
    const days = await new InsightsRepository(db).artistDays(artist, day(30), day(0));
    const byDay = new Map(expected.rows.map((r) => [r.period, r]));
    for (const row of days) {
      const want = byDay.get(row.period);
      expect({ period: row.period, likes: row.likes, reposts: row.reposts, comments: row.comments }).toEqual(
        want ?? { period: row.period, likes: 0, reposts: 0, comments: 0 },
      );
    }
    expect(days.find((d) => d.period === day(0))).toMatchObject({ likes: 3, reposts: 1, comments: 0 });
    expect(days.find((d) => d.period === day(20))).toMatchObject({ comments: 1 });
    // Days whose sums are all zero keep no rollup row.
    const zero = await db.query(`SELECT count(*)::int AS n FROM artist_engagement_days WHERE artist_id = $1 AND likes = 0 AND reposts = 0 AND comments = 0`, [
      artist,
    ]);
    expect(zero.rows[0]).toEqual({ n: 0 });
  });
});

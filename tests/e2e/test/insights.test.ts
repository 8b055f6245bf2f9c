import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import { Fleet } from './fleet.js';

const fleet = new Fleet();
const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const BOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';

type User = { userId: number; username: string; token: string };
const NAMES = ['ins-artist', 'ins-lis1', 'ins-lis2', 'ins-flood'] as const;
const users = {} as Record<(typeof NAMES)[number], User>;
let adminToken = '';

async function sign(userId: number, username: string, role: Role = 'LISTENER'): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function api(method: string, path: string, who: User | string | null = null, body?: unknown, headers: Record<string, string> = {}) {
  const token = typeof who === 'string' ? who : who?.token;
  const res = await fleet.fetch(path, {
    method,
    headers: {
      'user-agent': BROWSER,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('json') && text ? (JSON.parse(text) as Record<string, any>) : {};
  return { status: res.status, body: json, text, headers: res.headers };
}

async function register(username: string): Promise<User> {
  const res = await api('POST', '/api/auth/register/local', null, {
    email: `${username}@example.com`,
    username,
    displayName: username,
    password: 'a long enough secret',
    dateOfBirth: '1990-02-03',
  });
  expect(res.status).toBe(201);
  return { userId: res.body.userId as number, username, token: await sign(res.body.userId, username) };
}

/** FINISHED tracks of the artist, written straight to catalog (plays need no renditions). */
async function tracks(count: number): Promise<number[]> {
  const rows = await catalog().infra.prisma.track.createManyAndReturn({
    data: Array.from({ length: count }, () => {
      const slug = `ins-${randomUUID().slice(0, 12)}`;
      return {
        artistId: users['ins-artist'].userId,
        title: slug,
        trackSlug: slug,
        genre: 'Ambient',
        releaseDate: new Date('2026-01-15T00:00:00.000Z'),
        secretToken: randomBytes(24).toString('base64url'),
        uploadId: randomUUID(),
        state: 'FINISHED' as const,
        durationSeconds: 200,
        publishedAt: new Date(),
      };
    }),
    select: { id: true },
  });
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

const playCount = async (id: number) => (await api('GET', `/api/tracks/${id}`)).body.playCount as number;

beforeAll(async () => {
  await fleet.start({ RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' });
  for (const name of NAMES) users[name] = await register(name);
  adminToken = await sign(990_011, 'admin-ins', 'ADMIN');
  const ids = NAMES.map((n) => users[n].userId);
  await waitFor(async () => (await catalog().infra.prisma.userSummary.count({ where: { userId: { in: ids } } })) === ids.length, {
    timeoutMs: 15_000,
    message: 'catalog never saw the registrations',
  });
}, 180_000);

afterAll(async () => {
  await fleet.close();
}, 60_000);

describe('TRK-17 TRK-18 INS-1 INS-2 INS-3 INS-4 insights through the gateway', () => {
  let hit: number;
  let flood: number[];

  it('counts two listeners and an anonymous client, not a bot, a repeat or a flood', async () => {
    hit = (await tracks(1))[0]!;
    flood = await tracks(65);
    const play = (who: User | null, source?: string, ua = BROWSER) =>
      api('POST', `/api/tracks/${hit}/play`, who, source ? { source } : {}, { 'user-agent': ua });
    expect((await play(users['ins-lis1'], 'feed')).status).toBe(200);
    expect((await play(users['ins-lis1'], 'feed')).body.message).toBe('Play already counted.');
    expect((await play(users['ins-lis2'], 'profile')).status).toBe(200);
    expect((await play(null, 'embed')).body.message).toBe('Play counted.');
    expect((await play(null, 'embed', BOT)).body.message).toBe('Play already counted.');
    expect((await play(users['ins-lis1'], 'radio')).status).toBe(400);
    expect((await api('POST', `/api/tracks/${hit}/complete`, users['ins-lis2'], {})).status).toBe(200);
    for (const id of flood) expect((await api('POST', `/api/tracks/${id}/play`, users['ins-flood'], { source: 'station' })).status).toBe(200);

    expect(await playCount(hit)).toBe(3);
    const counted = await Promise.all(flood.map(playCount));
    expect(counted.reduce((a, b) => a + b, 0)).toBe(60);

    const insights = await api('GET', `/api/insights/tracks/${hit}`, users['ins-artist']);
    expect(insights.status).toBe(200);
    expect(insights.body.totals).toEqual({ plays: 3, completions: 1, likes: 0, reposts: 0, comments: 0, downloads: 0 });
    expect(insights.body.sources).toEqual([
      { source: 'embed', plays: 1 },
      { source: 'feed', plays: 1 },
      { source: 'profile', plays: 1 },
    ]);
    const csv = await api('GET', `/api/insights/tracks/${hit}`, users['ins-artist'], undefined, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const series = insights.body.series as Array<Record<string, string | number>>;
    expect(csv.text.trim().split('\n').slice(1)).toEqual(
      series.map((r) => [r.period, r.plays, r.completions, r.likes, r.reposts, r.comments, r.downloads].join(',')),
    );

    const me = await api('GET', '/api/insights/me', users['ins-artist']);
    expect(me.status).toBe(200);
    expect(me.body.totals).toMatchObject({ plays: 63, completions: 1 });
    expect(me.body.topListeners.map((l: { username: string }) => l.username)).toEqual(['ins-flood', 'ins-lis1', 'ins-lis2']);
  }, 120_000);

  it('a void recounts playCount, rollups and the series, and is audited', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await api('POST', '/api/admin/plays/void', adminToken, { listenerId: users['ins-flood'].userId, from, to, reason: 'e2e flood' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ voided: 65, uncounted: 60 });
    await waitFor(async () => (await Promise.all(flood.map(playCount))).every((n) => n === 0), { timeoutMs: 60_000, message: 'playCount recount' });
    const me = await api('GET', '/api/insights/me', users['ins-artist']);
    expect(me.body.totals.plays).toBe(3);
    const audit = await waitFor(async () => catalog().infra.prisma.adminAudit.findFirst({ where: { action: { contains: 'INS-3' }, reason: 'e2e flood' } }));
    expect(audit?.adminId).toBe(990_011);
    const none = await api('POST', '/api/admin/plays/void', adminToken, { clientHash: 'nobody', from, to, reason: 'nothing' });
    expect(none.body).toMatchObject({ voided: 0, uncounted: 0 });
  });

  it('progress of three plays gives their retention curve', async () => {
    const [t] = await tracks(1);
    const lis = [users['ins-lis1'], users['ins-lis2'], users['ins-flood']];
    const ids: string[] = [];
    for (const who of lis) {
      const res = await fleet.fetch(`/api/tracks/${t}/play`, {
        method: 'POST',
        headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json', 'user-agent': BROWSER },
        body: '{}',
      });
      expect(res.status).toBe(200);
      ids.push(res.headers.get('x-play-id')!);
    }
    // 200 s: the plays stop at 50 %, 20 % and the end (a position past it is clamped).
    expect((await api('POST', `/api/tracks/${t}/progress`, lis[0]!, { position: 100, playId: ids[0] })).body).toEqual({ accepted: 1, ignored: 0 });
    expect((await api('POST', `/api/tracks/${t}/progress`, lis[1]!, { events: [{ position: 20 }, { position: 40 }] })).body).toEqual({
      accepted: 2,
      ignored: 0,
    });
    expect((await api('POST', `/api/tracks/${t}/progress`, lis[2]!, { position: 500 })).status).toBe(200);
    const { body } = await api('GET', `/api/insights/tracks/${t}`, users['ins-artist']);
    const shares = (body.retention.points as Array<{ percent: number; share: number }>).map((p) => p.share);
    expect(shares).toEqual(Array.from({ length: 100 }, (_, pct) => (pct <= 20 ? 1 : pct <= 50 ? 0.6667 : 0.3333)));
  });

  it('refuses other users (404) and bad ranges (400 with field errors)', async () => {
    const other = await api('GET', `/api/insights/tracks/${hit}`, users['ins-lis1']);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('TRACK_NOT_FOUND');
    const reversed = await api('GET', `/api/insights/tracks/${hit}?from=2026-05-02&to=2026-05-01`, users['ins-artist']);
    expect(reversed.status).toBe(400);
    expect(reversed.body.errors.map((e: { field: string }) => e.field)).toEqual(['from']);
    const long = await api('GET', '/api/insights/me?from=2020-01-01&to=2026-01-01', users['ins-artist']);
    expect(long.status).toBe(400);
    expect(long.body.errors.map((e: { field: string }) => e.field)).toEqual(['to']);
  });
});

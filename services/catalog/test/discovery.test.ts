import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, ItemLiked, ItemReposted, ItemUnliked, CommentAdded, UserBanned, UserBlocked, UserFollowed, UserRegistered } from '@msp/events';
import { ErrorResponseSchema } from '@msp/contracts';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';
import { ShortPrefixesRepository } from '../src/modules/discovery/short-prefixes.repository.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const WEB = 'https://web.example.test';

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const USERS = { artist: 901, listener: 902, banned: 903, blocker: 904, other: 905, fan: 906 } as const;
const as = (userId: number) => ({ 'x-user-id': String(userId), 'x-user-role': 'LISTENER', 'x-username': `u${userId}` });

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function register(userId: number, username: string, displayName = username) {
  await publish(
    createEnvelope(UserRegistered, {
      userId,
      username,
      displayName,
      avatarUrl: null,
      tier: 'FREE',
      role: 'ARTIST',
      isPrivate: false,
      createdAt: new Date().toISOString(),
    }),
  );
}

type TrackInput = {
  title: string;
  artistId?: number;
  genre?: string;
  tags?: string[];
  isPrivate?: boolean;
  state?: 'FINISHED' | 'PROCESSING';
  deleted?: boolean;
};
async function track(input: TrackInput): Promise<number> {
  const slug = `d-${randomUUID().slice(0, 8)}`;
  const genre = input.genre ?? 'Electronic';
  const row = await app.infra.prisma.track.create({
    data: {
      artistId: input.artistId ?? USERS.artist,
      title: input.title,
      trackSlug: slug,
      genre,
      genreKey: genre.toLowerCase(),
      tags: input.tags ?? [],
      releaseDate: new Date('2026-01-01T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: input.state ?? 'FINISHED',
      isPrivate: input.isPrivate ?? false,
      durationSeconds: 60,
      publishedAt: input.isPrivate ? null : new Date(),
      deletedAt: input.deleted ? new Date() : null,
      progressiveKey: `tracks/x/full.m4a`,
      waveformKey: `public/${randomUUID()}/waveform.json`,
    },
    select: { id: true },
  });
  return row.id;
}

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
async function search(q: string, extra = '', headers: Record<string, string> = {}) {
  const res = await get(`/api/search?q=${encodeURIComponent(q)}${extra}`, headers);
  expect(res.statusCode).toBe(200);
  return res.json() as { content: Array<{ type: string; id: number }>; totalElements: number };
}
const ids = (page: { content: Array<{ id: number }> }) => page.content.map((c) => c.id);

const t: Record<string, number> = {};

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_discovery', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, WEB_BASE_URL: WEB, SOCIAL_URL: 'http://127.0.0.1:1' }), { logger: false });
  await app.ready();
  await register(USERS.artist, 'beyonce-fan', 'Beyoncé Knowles');
  await register(USERS.listener, 'lisa');
  await register(USERS.banned, 'banned-bob');
  await register(USERS.blocker, 'blocky');
  await register(USERS.other, 'other-artist');
  await register(USERS.fan, 'fanny');
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 6, { message: 'projection' });
  t.midnight = await track({ title: 'Midnight City', tags: ['synthwave', 'retro'], genre: 'Synthpop' });
  t.cafe = await track({ title: 'Café del Mar', genre: 'Chillout' });
  t.midnightPrivate = await track({ title: 'Midnight Secret', isPrivate: true });
  t.midnightProcessing = await track({ title: 'Midnight Unfinished', state: 'PROCESSING' });
  t.midnightDeleted = await track({ title: 'Midnight Deleted', deleted: true });
  t.midnightBanned = await track({ title: 'Midnight Banned', artistId: USERS.banned });
  t.midnightBlocked = await track({ title: 'Midnight Blocked', artistId: USERS.blocker });
  t.midnightRunner = await track({ title: 'Midnight Runner', artistId: USERS.other, genre: 'Synthpop' });
  t.otherHouse = await track({ title: 'Other House', artistId: USERS.other, genre: 'House' });
  await publish(createEnvelope(UserBanned, { userId: USERS.banned, reason: null, bannedAt: new Date().toISOString() }));
  await publish(createEnvelope(UserBlocked, { blockerId: USERS.blocker, blockedId: USERS.listener, counts: [], at: new Date().toISOString() }));
  await waitFor(
    async () => (await app.infra.prisma.userBlock.count()) === 1 && (await app.infra.prisma.userSummary.count({ where: { isBanned: true } })) === 1,
    {
      message: 'ban and block copies',
    },
  );
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('DSC-3 search (R18)', () => {
  it('finds tracks by a title word, a tag and the genre, case and accents ignored', async () => {
    expect(ids(await search('CITY', '&type=TRACK'))).toEqual([t.midnight]);
    expect(ids(await search('synthwave'))[0]).toBe(t.midnight);
    expect(ids(await search('cafe'))).toContain(t.cafe);
    expect(ids(await search('chillout', '&type=tracks'))).toEqual([t.cafe]);
  });

  it('finds users by username and by display name, accent-insensitive', async () => {
    const byName = await search('beyonce', '&type=USER');
    expect(byName.content).toMatchObject([{ type: 'USER', id: USERS.artist, user: { username: 'beyonce-fan', displayName: 'Beyoncé Knowles' } }]);
    expect(ids(await search('knowles', '&type=USER'))).toEqual([USERS.artist]);
    expect(ids(await search('lisa', '&type=USER'))).toEqual([USERS.listener]);
  });

  it('matches a prefix of the last word and tolerates one wrong letter, ranking exact matches first', async () => {
    // Exact and prefix matches come before fuzzy ones (here: other "midnight" titles).
    expect(ids(await search('midnight ci', '&type=TRACK'))[0]).toBe(t.midnight);
    expect(ids(await search('midnigt', '&type=TRACK'))).toEqual(expect.arrayContaining([t.midnight, t.midnightRunner]));
    expect(ids(await search('synthwabe', '&type=TRACK'))[0]).toBe(t.midnight);
    const runner = await search('midnight runner', '&type=TRACK');
    expect(ids(runner)[0]).toBe(t.midnightRunner);
  });

  it('never returns private, unfinished, deleted, banned-artist or blocked items, also not in totals', async () => {
    const anonymous = await search('midnight', '&type=TRACK');
    expect(ids(anonymous).sort()).toEqual([t.midnight, t.midnightBlocked, t.midnightRunner].sort());
    expect(anonymous.totalElements).toBe(3);
    const blockedSide = await search('midnight', '&type=TRACK', as(USERS.listener));
    expect(ids(blockedSide).sort()).toEqual([t.midnight, t.midnightRunner].sort());
    expect(blockedSide.totalElements).toBe(2);
    expect(ids(await search('banned', '&type=USER'))).toEqual([]);
    expect(ids(await search('blocky', '&type=USER', as(USERS.listener)))).toEqual([]);
    expect(ids(await search('lisa', '&type=USER', as(USERS.blocker)))).toEqual([]);
  });

  it('applies the genre filter, which drops users, and pages with a consistent total', async () => {
    const page = await search('midnight', '&genre=synthpop&size=1');
    expect(page.totalElements).toBe(2);
    expect(page.content).toHaveLength(1);
    const second = await search('midnight', '&genre=synthpop&size=1&page=1');
    expect([...ids(page), ...ids(second)].sort()).toEqual([t.midnight, t.midnightRunner].sort());
    expect((await search('beyonce', '&genre=synthpop')).content.every((c) => c.type !== 'USER')).toBe(true);
  });

  it.each([
    ['', 'q'],
    ['x'.repeat(101), 'q'],
  ])('answers 400 VALIDATION_FAILED for q of %#', async (q, field) => {
    const res = await get(`/api/search?q=${q}`);
    expect(res.statusCode).toBe(400);
    expect(ErrorResponseSchema.parse(res.json())).toMatchObject({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field })] });
  });

  it('answers 400 for a missing q, an unknown type, a bad page, and copes with punctuation-only queries', async () => {
    for (const url of ['/api/search', '/api/search?q=a&type=SONGS', '/api/search?q=a&size=0', '/api/search?q=a&page=-1']) {
      expect((await get(url)).statusCode).toBe(400);
    }
    for (const q of ["'", '&|!:*()', '\\', '%', '"a" & b']) expect((await search(q)).totalElements).toBeGreaterThanOrEqual(0);
    for (const url of ['/api/stations/genre?genre=%00', '/api/explore/trending?genre=a%00b', '/api/search?q=a&genre=%00', '/api/resolve?url=%2Fa%00b']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
    }
    // NUL is refused in every query string, q included (ARCHITECTURE.md, input discipline).
    expect((await get('/api/search?q=%00')).statusCode).toBe(400);
  });
});

describe('DSC-3 search: one- and two-letter prefixes from kept candidates', () => {
  it('answers as the live search does, for items kept before a refresh and created after it, checked as they are now', async () => {
    const live = {
      m: await search('m', '&type=TRACK', as(USERS.listener)),
      mi: await search('mi', '&type=ALL'),
      b: await search('b', '&type=USER'),
    };
    const repo = new ShortPrefixesRepository(app.infra.pool);
    for (const kind of ['TRACK', 'PLAYLIST', 'USER'] as const) expect(await repo.refresh(kind, 200, 0)).toBe(true);
    // Fresh enough: a second refresh of the same age does nothing.
    expect(await repo.refresh('TRACK', 200, 60_000)).toBe(false);
    const kept = await repo.computed();
    expect(kept.get('TRACK')!.prefixes.has('m')).toBe(true);
    expect(kept.get('TRACK')!.prefixes.has('x')).toBe(true);
    const rows = await app.infra.pool.query<{ id: number }>(`SELECT id FROM search_short_prefixes WHERE kind = 'TRACK' AND prefix = 'm' ORDER BY rank`);
    expect(rows.rows.map((r) => r.id)).toContain(t.midnight);
    expect(rows.rows.map((r) => r.id)).not.toContain(t.midnightPrivate);
    // The kept candidates are read at most a minute per replica: a new app reads them at once.
    const fresh = await buildApp(loadCatalogConfig({ ...env.env, WEB_BASE_URL: WEB, SOCIAL_URL: 'http://127.0.0.1:1' }), { logger: false });
    try {
      const find = async (q: string, extra = '', headers: Record<string, string> = {}) => {
        const res = await fresh.inject({ method: 'GET', url: `/api/search?q=${encodeURIComponent(q)}${extra}`, headers });
        expect(res.statusCode).toBe(200);
        return res.json() as { content: Array<{ type: string; id: number }>; totalElements: number };
      };
      expect(await find('m', '&type=TRACK', as(USERS.listener))).toEqual(live.m);
      expect(await find('mi', '&type=ALL')).toEqual(live.mi);
      expect(await find('b', '&type=USER')).toEqual(live.b);
      // Created after the refresh: found (ids above the refresh's highest are searched live).
      const late = await track({ title: 'Mañana Late' });
      expect(ids(await find('m', '&type=TRACK'))).toContain(late);
      // Kept, then made private: gone at once, also from the total.
      const before = await find('m', '&type=TRACK');
      await app.infra.prisma.track.update({ where: { id: t.midnightRunner }, data: { isPrivate: true } });
      const after = await find('m', '&type=TRACK');
      expect(ids(after)).not.toContain(t.midnightRunner);
      expect(after.totalElements).toBe(before.totalElements - 1);
      await app.infra.prisma.track.update({ where: { id: t.midnightRunner }, data: { isPrivate: false } });
      await app.infra.prisma.track.delete({ where: { id: late } });
      // A letter nothing starts: no rows kept, an empty answer without a walk of the catalogue.
      expect((await find('x', '&type=ALL')).totalElements).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});

describe('DSC-2 trending (R18)', () => {
  it('orders by plays + 3 likes + 5 reposts + 2 comments over 7 days, filters by genre and ranks across pages', async () => {
    const at = new Date().toISOString();
    // midnight: 1 repost (5) + 1 comment (2) = 7; cafe: 2 likes (6); otherHouse: 1 like (3) + 1 play... via API
    await publish(createEnvelope(ItemReposted, { userId: USERS.fan, targetType: 'TRACK', targetId: t.midnight!, ownerId: USERS.artist, repostCount: 1, at }));
    await publish(
      createEnvelope(CommentAdded, {
        commentId: 77,
        trackId: t.midnight!,
        trackOwnerId: USERS.artist,
        authorId: USERS.fan,
        replyToCommentId: null,
        parentAuthorId: null,
        body: 'x',
        commentCount: 1,
        at,
      }),
    );
    await publish(createEnvelope(ItemLiked, { userId: USERS.fan, targetType: 'TRACK', targetId: t.cafe!, ownerId: USERS.artist, likeCount: 1, at }));
    await publish(createEnvelope(ItemLiked, { userId: USERS.listener, targetType: 'TRACK', targetId: t.cafe!, ownerId: USERS.artist, likeCount: 2, at }));
    await publish(createEnvelope(ItemLiked, { userId: USERS.fan, targetType: 'TRACK', targetId: t.otherHouse!, ownerId: USERS.other, likeCount: 1, at }));
    await publish(
      createEnvelope(ItemLiked, { userId: USERS.listener, targetType: 'TRACK', targetId: t.midnightRunner!, ownerId: USERS.other, likeCount: 1, at }),
    );
    await publish(
      createEnvelope(ItemUnliked, { userId: USERS.listener, targetType: 'TRACK', targetId: t.midnightRunner!, ownerId: USERS.other, likeCount: 0, at }),
    );
    expect((await app.inject({ method: 'POST', url: `/api/tracks/${t.otherHouse}/play`, headers: as(USERS.fan), payload: {} })).statusCode).toBe(200);
    await waitFor(async () => (await app.infra.prisma.processedEvent.count({ where: { consumer: 'catalog--social-sync' } })) >= 8, {
      message: 'social events',
    });

    const all = await get('/api/explore/trending');
    expect(all.statusCode).toBe(200);
    const body = all.json() as { content: Array<{ id: number; trendingRank: number }>; totalElements: number };
    expect(body.content.map((c) => [c.id, c.trendingRank])).toEqual([
      [t.midnight, 1],
      [t.cafe, 2],
      [t.otherHouse, 3],
    ]);
    const second = (await get('/api/explore/trending?limit=1&page=1')).json() as typeof body;
    expect(second.content.map((c) => [c.id, c.trendingRank])).toEqual([[t.cafe, 2]]);
    expect(second.totalElements).toBe(3);
    expect(((await get('/api/explore/trending?genre=HOUSE')).json() as typeof body).content.map((c) => c.id)).toEqual([t.otherHouse]);
    // R7 on the chart shared by viewers: the blocked artist's track is left out for the listener, before paging.
    await app.infra.prisma.track.update({ where: { id: t.midnightBlocked! }, data: { trendingScore: 100 } });
    const electronic = (await get('/api/explore/trending?genre=electronic')).json() as typeof body;
    expect([electronic.content.map((c) => c.id), electronic.totalElements]).toEqual([[t.midnightBlocked], 1]);
    const forListener = (await get('/api/explore/trending?genre=electronic', as(USERS.listener))).json() as typeof body;
    expect([forListener.content, forListener.totalElements]).toEqual([[], 0]);
    for (const url of ['/api/explore/trending?limit=0', '/api/explore/trending?size=101', '/api/explore/trending?page=x'])
      expect((await get(url)).statusCode).toBe(400);
  });
});

describe('DSC-4 resolve', () => {
  it('resolves profile, track and playlist links, absolute and bare', async () => {
    const slug = (await app.infra.prisma.track.findUniqueOrThrow({ where: { id: t.midnight! } })).trackSlug;
    for (const base of [WEB, '']) {
      expect((await get(`/api/resolve?url=${encodeURIComponent(`${base}/beyonce-fan`)}`)).json()).toEqual({
        type: 'USER',
        id: USERS.artist,
        resourceType: 'USER',
        resourceId: USERS.artist,
      });
      expect((await get(`/api/resolve?url=${encodeURIComponent(`${base}/beyonce-fan/${slug}`)}`)).json()).toMatchObject({ type: 'TRACK', id: t.midnight });
    }
    expect((await get(`/api/resolve?url=${encodeURIComponent(`beyonce-fan/${slug}`)}`)).statusCode).toBe(200);
  });

  it('answers 404 for invisible items and 400 for garbage', async () => {
    const priv = await app.infra.prisma.track.findUniqueOrThrow({ where: { id: t.midnightPrivate! } });
    expect((await get(`/api/resolve?url=${encodeURIComponent(`${WEB}/beyonce-fan/${priv.trackSlug}`)}`)).statusCode).toBe(404);
    expect((await get(`/api/resolve?url=${encodeURIComponent(`${WEB}/beyonce-fan/${priv.trackSlug}?token=${priv.secretToken}`)}`)).json()).toMatchObject({
      id: priv.id,
    });
    expect((await get(`/api/resolve?url=${encodeURIComponent(`${WEB}/nobody-here`)}`)).statusCode).toBe(404);
    for (const url of ['https://evil.example/beyonce-fan', 'javascript:alert(1)', '/a/b/c/d', '/', '%%%', 'ftp://web.example.test/x', '/beyonce-fan/sets']) {
      const res = await get(`/api/resolve?url=${encodeURIComponent(url)}`);
      expect(res.statusCode, url).toBe(400);
      expect(ErrorResponseSchema.parse(res.json()).code).toBe('VALIDATION_FAILED');
    }
    expect((await get('/api/resolve')).statusCode).toBe(400);
  });
});

describe('DSC-6 / DSC-7 stations (R18)', () => {
  it('artist station holds the artist and similar artists, fixed for the day; 404 for an unknown artist', async () => {
    const first = (await get(`/api/stations/artist?artistId=${USERS.artist}`)).json() as { content: Array<{ id: number }>; totalElements: number };
    // Its genres are Synthpop and Chillout: Midnight Runner shares one; Other House does not.
    expect(ids(first).sort()).toEqual([t.midnight, t.cafe, t.midnightRunner].sort());
    const again = (await get(`/api/stations/artist?artistId=${USERS.artist}`)).json() as typeof first;
    expect(ids(again)).toEqual(ids(first));
    expect((await get('/api/stations/artist?artistId=424242')).statusCode).toBe(404);
    expect((await get('/api/stations/artist?artistId=abc')).statusCode).toBe(400);
    expect((await get('/api/stations/artist')).statusCode).toBe(400);
    expect((await get(`/api/stations/artist?artistId=${USERS.banned}`)).statusCode).toBe(404);
  });

  it('likes station: artists and genres of the likes minus liked tracks; empty without likes; 401 anonymous', async () => {
    // fan liked cafe (artist, Chillout) and otherHouse (other, House).
    const page = (await get('/api/stations/likes', as(USERS.fan))).json() as { content: Array<{ id: number }>; totalElements: number };
    expect(ids(page).sort()).toEqual([t.midnight, t.midnightRunner].sort());
    expect(ids((await get('/api/stations/likes', as(USERS.fan))).json() as typeof page)).toEqual(ids(page));
    expect(((await get('/api/stations/likes', as(USERS.other))).json() as typeof page).totalElements).toBe(0);
    expect((await get('/api/stations/likes')).statusCode).toBe(401);
  });
});

// Last: its likes, reposts and follow would move the charts and stations asserted above.
describe('DSC-3 search as a viewer', () => {
  it("answers a viewer's isLiked, isReposted and isFollowing from catalog's copies, social not asked (here it cannot be reached)", async () => {
    const at = new Date().toISOString();
    const runner = t.midnightRunner!;
    await publish(createEnvelope(ItemLiked, { userId: USERS.fan, targetType: 'TRACK', targetId: runner, ownerId: USERS.other, likeCount: 1, at }));
    await publish(createEnvelope(ItemReposted, { userId: USERS.fan, targetType: 'TRACK', targetId: runner, ownerId: USERS.other, repostCount: 1, at }));
    await publish(createEnvelope(UserFollowed, { followerId: USERS.fan, followeeId: USERS.other, followerFollowingCount: 1, followeeFollowerCount: 1, at }));
    await waitFor(
      async () =>
        (await app.infra.prisma.trackEngagement.count({ where: { userId: USERS.fan, trackId: runner } })) === 2 &&
        (await app.infra.prisma.userFollow.count({ where: { followerId: USERS.fan, followeeId: USERS.other } })) === 1,
      { message: 'engagement and follow copies' },
    );
    type Ref = {
      type: string;
      id: number;
      track: { isLiked: boolean; isReposted: boolean; artist: { isFollowing: boolean } } | null;
      user: { isFollowing: boolean } | null;
    };
    const page = (await search('midnight runner', '', as(USERS.fan))) as unknown as { content: Ref[] };
    const hit = page.content.find((r) => r.type === 'TRACK' && r.id === runner)!;
    expect([hit.track!.isLiked, hit.track!.isReposted, hit.track!.artist.isFollowing]).toEqual([true, true, true]);
    const users = (await search('other-artist', '&type=USER', as(USERS.fan))) as unknown as { content: Ref[] };
    expect(users.content.map((r) => [r.id, r.user!.isFollowing])).toEqual([[USERS.other, true]]);
    const anonymous = (await search('other-artist', '&type=USER')) as unknown as { content: Ref[] };
    expect(anonymous.content.map((r) => [r.id, r.user!.isFollowing])).toEqual([[USERS.other, false]]);
  });
});

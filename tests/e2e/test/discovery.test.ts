import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, FeedItemSchema, pageSchema, RadioTrackSchema, ResourceRefSchema, TrackSchema, type Role } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';

const WEB = 'https://music.example.test';
const fleet = new Fleet();
const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const social = () => fleet.apps.get('social') as Awaited<ReturnType<typeof buildSocial>>;

type User = { userId: number; username: string; token: string };
const NAMES = ['anna', 'ben', 'cleo', 'dave', 'eve', 'banned-bob', 'queen-b', 'frank', 'lis1', 'lis2', 'lis3', 'lis4', 'lis5'] as const;
const users = {} as Record<(typeof NAMES)[number], User>;
let adminToken = '';

async function sign(userId: number, username: string, role: Role = 'LISTENER'): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function api(method: string, path: string, who: User | string | null = null, body?: unknown) {
  const token = typeof who === 'string' ? who : who?.token;
  const res = await fleet.fetch(path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
}

async function register(username: string, displayName = username): Promise<User> {
  const res = await api('POST', '/api/auth/register/local', null, {
    email: `${username}@example.com`,
    username,
    displayName,
    password: 'a long enough secret',
    dateOfBirth: '1990-02-03',
  });
  expect(res.status).toBe(201);
  return { userId: res.body.userId as number, username: res.body.username as string, token: await sign(res.body.userId, res.body.username) };
}

type TrackInput = { title: string; genre?: string; tags?: string[]; isPrivate?: boolean; state?: 'FINISHED' | 'PROCESSING' };

/**
 * A track as the upload pipeline leaves it, without the (slow) worker: a FINISHED row with its
 * renditions' keys, and catalog's own change events (TrackChanged, TrackPublished when public)
 * through its outbox, so social and the feed see it as they would after a real upload.
 */
async function track(artist: User, input: TrackInput): Promise<{ id: number; slug: string; secretToken: string }> {
  const slug = `${input.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomUUID().slice(0, 6)}`;
  const genre = input.genre ?? 'Shoegaze';
  const finished = (input.state ?? 'FINISHED') === 'FINISHED';
  const created = await catalog().infra.prisma.track.create({
    data: {
      artistId: artist.userId,
      title: input.title,
      trackSlug: slug,
      genre,
      genreKey: genre.toLowerCase(),
      tags: input.tags ?? [],
      releaseDate: new Date('2026-01-15T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: input.state ?? 'FINISHED',
      isPrivate: input.isPrivate ?? false,
      durationSeconds: 120,
      publishedAt: !input.isPrivate && finished ? new Date() : null,
      progressiveKey: finished ? 'tracks/x/full.m4a' : null,
      waveformKey: finished ? `public/${randomUUID()}/waveform.png` : null,
    },
    select: { id: true, secretToken: true },
  });
  const row = (await catalog().trackRepo.findById(created.id))!;
  await catalog().infra.prisma.$transaction((tx) => catalog().trackEvents.afterChange(tx, null, row, null));
  await waitFor(async () => (await social().infra.prisma.trackRef.count({ where: { trackId: created.id } })) === 1, { message: `social never saw ${slug}` });
  return { id: created.id, slug, secretToken: created.secretToken };
}

const FeedPage = pageSchema(FeedItemSchema.strict());
const SearchPage = pageSchema(ResourceRefSchema);
const TrendingPage = pageSchema(TrackSchema);
const RadioPage = pageSchema(RadioTrackSchema.strict());

async function feedOf(user: User, query = '?size=50') {
  const res = await api('GET', `/api/feed${query}`, user);
  expect(res.status).toBe(200);
  return FeedPage.parse(res.body);
}
async function search(q: string, extra = '', who: User | null = null) {
  const res = await api('GET', `/api/search?q=${encodeURIComponent(q)}&size=100${extra}`, who);
  expect(res.status).toBe(200);
  return SearchPage.parse(res.body);
}
const refIds = (page: { content: Array<{ type: string; id: number }> }, type = 'TRACK') => page.content.filter((c) => c.type === type).map((c) => c.id);

beforeAll(async () => {
  await fleet.start(
    { RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' },
    { catalog: { WEB_BASE_URL: WEB }, social: { WEB_BASE_URL: WEB } },
  );
  for (const name of NAMES) users[name] = await register(name, name === 'queen-b' ? 'Beyoncé Knowles' : name[0]!.toUpperCase() + name.slice(1));
  adminToken = await sign(990_001, 'admin-one', 'ADMIN');
  const ids = NAMES.map((n) => users[n].userId);
  await waitFor(
    async () =>
      (await catalog().infra.prisma.userSummary.count({ where: { userId: { in: ids } } })) === ids.length &&
      (await social().infra.prisma.userSummary.count({ where: { userId: { in: ids } } })) === ids.length,
    { timeoutMs: 15_000, message: 'catalog and social never saw the registrations' },
  );
}, 180_000);

afterAll(async () => {
  await fleet.close();
}, 60_000);

describe('DSC-3 search (R18) through the gateway', () => {
  const t: Record<string, { id: number; slug: string }> = {};

  beforeAll(async () => {
    t.bloom = await track(users.ben, { title: 'Midnight Bloom', tags: ['dreamwave', 'night'], genre: 'Shoegaze' });
    t.private = await track(users.ben, { title: 'Midnight Bloom Private', isPrivate: true });
    t.draft = await track(users.ben, { title: 'Midnight Bloom Draft', state: 'PROCESSING' });
    t.deleted = await track(users.ben, { title: 'Midnight Bloom Deleted' });
    t.banned = await track(users['banned-bob'], { title: 'Midnight Bloom Banned' });
    t.blocked = await track(users.eve, { title: 'Midnight Bloom Blocked' });
    expect((await api('DELETE', `/api/tracks/${t.deleted.id}`, users.ben)).status).toBeLessThan(300);
    expect((await api('PATCH', `/api/admin/users/${users['banned-bob'].userId}/ban`, adminToken, { isBanned: true })).status).toBe(200);
    expect((await api('POST', `/api/users/${users.anna.userId}/block`, users.eve)).status).toBeLessThan(300);
    const playlist = await api('POST', '/api/playlists', users.ben, { title: 'Sunset Drive Mix', isPrivate: false, genre: 'Shoegaze' });
    expect(playlist.status).toBe(201);
    t.playlist = { id: playlist.body.id, slug: playlist.body.playlistSlug };
    await waitFor(
      async () =>
        (await catalog().infra.prisma.userBlock.count()) === 1 && (await catalog().infra.prisma.userSummary.count({ where: { isBanned: true } })) === 1,
      {
        message: 'catalog never saw the ban and the block',
      },
    );
  }, 60_000);

  it('finds a track by a word of its title, a tag and its genre, ignoring case', async () => {
    expect(refIds(await search('BLOOM'))).toContain(t.bloom!.id);
    expect(refIds(await search('dreamwave'))).toEqual([t.bloom!.id]);
    expect(refIds(await search('shoegaze', '&type=TRACK'))).toContain(t.bloom!.id);
  });

  it('finds a user by username and by display name, accents ignored; a playlist by title', async () => {
    const byUsername = await search('queen-b', '&type=USER');
    expect(byUsername.content[0]).toMatchObject({ type: 'USER', id: users['queen-b'].userId, user: { username: 'queen-b', displayName: 'Beyoncé Knowles' } });
    expect(refIds(await search('beyonce', '&type=USER'), 'USER')).toEqual([users['queen-b'].userId]);
    expect(refIds(await search('BEYONCÉ knowles'), 'USER')).toEqual([users['queen-b'].userId]);
    const playlists = await search('sunset drive', '&type=PLAYLISTS');
    expect(playlists.content).toMatchObject([{ type: 'PLAYLIST', id: t.playlist!.id, playlist: { title: 'Sunset Drive Mix' } }]);
  });

  it('matches a prefix of the last word and a word with one wrong letter, exact matches first', async () => {
    expect(refIds(await search('midnight blo'))[0]).toBe(t.bloom!.id);
    expect(refIds(await search('midnigth bloom'))[0]).toBe(t.bloom!.id);
    expect(refIds(await search('dreamwafe'))).toContain(t.bloom!.id);
  });

  it('never returns private, unfinished, deleted, banned-artist or blocked items, also not in totals', async () => {
    const hidden = [t.private!.id, t.draft!.id, t.deleted!.id, t.banned!.id];
    const anonymous = await search('midnight bloom', '&type=TRACK');
    expect(refIds(anonymous)).toEqual(expect.arrayContaining([t.bloom!.id, t.blocked!.id]));
    for (const id of hidden) expect(refIds(anonymous)).not.toContain(id);
    expect(anonymous.totalElements).toBe(anonymous.content.length);
    const blockedViewer = await search('midnight bloom', '', users.anna);
    for (const id of [...hidden, t.blocked!.id]) expect(refIds(blockedViewer)).not.toContain(id);
    expect(blockedViewer.totalElements).toBe(blockedViewer.content.length);
    expect(refIds(await search('eve', '&type=USER', users.anna), 'USER')).not.toContain(users.eve.userId);
    expect(refIds(await search('anna', '&type=USER', users.eve), 'USER')).not.toContain(users.anna.userId);
    expect(refIds(await search('banned-bob', '&type=USER'), 'USER')).toEqual([]);
  });

  it('applies the type filter', async () => {
    for (const [type, kind] of [
      ['TRACK', 'TRACK'],
      ['USER', 'USER'],
      ['PLAYLIST', 'PLAYLIST'],
      ['tracks', 'TRACK'],
    ] as const) {
      const page = await search('b', `&type=${type}`);
      expect(page.content.every((c) => c.type === kind)).toBe(true);
    }
  });

  it('answers 400 for q of 0 or 101 characters', async () => {
    for (const q of ['', 'x'.repeat(101)]) {
      const res = await api('GET', `/api/search?q=${q}`);
      expect(res.status).toBe(400);
      expect(ErrorResponseSchema.parse(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: 'q' })] });
    }
    expect((await api('GET', `/api/search?q=${'x'.repeat(100)}`)).status).toBe(200);
  });
});

describe('DSC-4 resolve through the gateway', () => {
  it('resolves each R1 link form, with and without the web base URL; a private track is 404 for others; garbage is 400', async () => {
    const pub = await track(users.frank, { title: 'Resolve Me' });
    const priv = await track(users.frank, { title: 'Hidden One', isPrivate: true });
    const playlist = await api('POST', '/api/playlists', users.frank, { title: 'Frank Set', isPrivate: false });
    const secret = await api('POST', '/api/playlists', users.frank, { title: 'Frank Secret Set', isPrivate: true });
    const forms: Array<[string, string, number]> = [
      [`/${users.frank.username}`, 'USER', users.frank.userId],
      [`/${users.frank.username}/${pub.slug}`, 'TRACK', pub.id],
      [`/${users.frank.username}/sets/${playlist.body.playlistSlug}`, 'PLAYLIST', playlist.body.id],
      [`/${users.frank.username}/${priv.slug}?token=${priv.secretToken}`, 'TRACK', priv.id],
      [`/${users.frank.username}/sets/${secret.body.playlistSlug}?token=${secret.body.secretToken}`, 'PLAYLIST', secret.body.id],
    ];
    for (const [path, type, id] of forms) {
      for (const url of [`${WEB}${path}`, path]) {
        const res = await api('GET', `/api/resolve?url=${encodeURIComponent(url)}`, users.anna);
        expect(res.status, url).toBe(200);
        expect(res.body).toEqual({ type, id, resourceType: type, resourceId: id });
      }
    }
    const privLink = `${WEB}/${users.frank.username}/${priv.slug}`;
    expect((await api('GET', `/api/resolve?url=${encodeURIComponent(privLink)}`, users.anna)).status).toBe(404);
    expect((await api('GET', `/api/resolve?url=${encodeURIComponent(privLink)}`)).status).toBe(404);
    expect((await api('GET', `/api/resolve?url=${encodeURIComponent(privLink)}`, users.frank)).body).toMatchObject({ type: 'TRACK', id: priv.id });
    for (const garbage of ['https://elsewhere.example/frank', 'not a link at all', '/frank/a/b/c', 'mailto:x@y.z', '/']) {
      const res = await api('GET', `/api/resolve?url=${encodeURIComponent(garbage)}`);
      expect(res.status, garbage).toBe(400);
      expect(ErrorResponseSchema.parse(res.body).code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('DSC-1 feed (R18) through the gateway', () => {
  it("holds the followed users' items newest first with their actors, drops unfollowed, private, deleted and blocked ones", async () => {
    const { anna: a, ben: b, cleo: c, dave: d } = users;
    expect((await api('POST', `/api/users/${b.userId}/follow`, a)).status).toBe(200);
    expect((await api('POST', `/api/users/${c.userId}/follow`, a)).status).toBe(200);
    const daveTrack = await track(d, { title: 'Dave Tune', genre: 'Trendcore' });
    const davePlaylist = await api('POST', '/api/playlists', d, { title: 'Dave Picks', isPrivate: false });
    // B publishes a track (TRK-5 on a finished private track), C reposts D's playlist, B likes D's track.
    const benTrack = await track(b, { title: 'Ben Debut', isPrivate: true });
    expect((await api('POST', `/api/tracks/${benTrack.id}/publish`, b)).status).toBe(200);
    await waitFor(async () => !!(await social().infra.prisma.trackRef.findUnique({ where: { trackId: benTrack.id } }))?.publishedAt, { message: 'publish' });
    await waitFor(async () => (await social().infra.prisma.playlistRef.count({ where: { playlistId: davePlaylist.body.id } })) === 1, { message: 'playlist' });
    expect((await api('POST', `/api/playlists/${davePlaylist.body.id}/repost`, c)).status).toBe(200);
    expect((await api('POST', `/api/tracks/${daveTrack.id}/like`, b)).status).toBe(200);
    // A's own actions never appear; B's private track and its like neither.
    expect((await api('POST', `/api/tracks/${daveTrack.id}/repost`, a)).status).toBe(200);
    const benPrivate = await track(b, { title: 'Ben Private', isPrivate: true });
    expect((await api('POST', `/api/tracks/${benPrivate.id}/like`, b)).status).toBe(200);
    const benDeleted = await track(b, { title: 'Ben Gone' });

    const expected = [
      ['TRACK_POSTED', benDeleted.id, b.userId],
      ['TRACK_LIKED', daveTrack.id, b.userId],
      ['PLAYLIST_REPOSTED', davePlaylist.body.id, c.userId],
      ['TRACK_POSTED', benTrack.id, b.userId],
    ];
    // Only this scenario's resources (B's earlier public tracks are in the feed too, further down).
    const mine = new Set([benTrack.id, daveTrack.id, davePlaylist.body.id, benPrivate.id, benDeleted.id]);
    const items = (page: Awaited<ReturnType<typeof feedOf>>) =>
      page.content
        .filter((i) => mine.has(i.resource.id) && !(i.resource.type === 'PLAYLIST' && i.resource.id !== davePlaylist.body.id))
        .map((i) => [i.type, i.resource.id, i.actor.id]);
    await waitFor(async () => JSON.stringify(items(await feedOf(a))) === JSON.stringify(expected), { timeoutMs: 10_000, message: 'feed' });
    const page = await feedOf(a);
    expect(page.content.slice(0, 4).map((i) => [i.type, i.resource.id, i.actor.id])).toEqual(expected);
    expect(page.totalElements).toBe(page.content.length);
    const times = page.content.map((i) => i.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(page.content[1]).toMatchObject({
      likedBy: { id: b.userId },
      repostedBy: null,
      resource: { type: 'TRACK', track: { id: daveTrack.id, isReposted: true } },
    });
    expect(page.content[2]).toMatchObject({ repostedBy: { id: c.userId }, resource: { type: 'PLAYLIST', playlist: { id: davePlaylist.body.id } } });
    expect(page.content.every((i) => i.actor.id !== a.userId)).toBe(true);
    expect(page.content.some((i) => i.resource.id === benPrivate.id && i.resource.type === 'TRACK')).toBe(false);

    expect((await api('DELETE', `/api/tracks/${benDeleted.id}`, b)).status).toBeLessThan(300);
    await waitFor(async () => JSON.stringify(items(await feedOf(a))) === JSON.stringify(expected.slice(1)), { message: 'deleted track still in feed' });

    expect((await api('DELETE', `/api/users/${c.userId}/follow`, a)).status).toBe(200);
    expect(items(await feedOf(a))).toEqual([expected[1], expected[3]]);
    expect((await feedOf(a)).content.some((i) => i.actor.id === c.userId)).toBe(false);

    expect((await api('POST', `/api/users/${a.userId}/block`, d)).status).toBeLessThan(300);
    expect(items(await feedOf(a))).toEqual([expected[3]]);
    expect((await api('GET', '/api/feed')).status).toBe(401);
  }, 60_000);
});

describe('DSC-2 trending (R18) through the gateway', () => {
  it('orders by plays + 3 likes + 5 reposts + 2 comments, filters by genre, ranks across pages', async () => {
    const [x, y, z] = [
      await track(users.dave, { title: 'Trend X', genre: 'Trendwave' }),
      await track(users.dave, { title: 'Trend Y', genre: 'Trendwave' }),
      await track(users.dave, { title: 'Trend Z', genre: 'Trendwave' }),
    ];
    const listeners = [users.lis1, users.lis2, users.lis3, users.lis4, users.lis5];
    const actions: Record<number, { plays: number; likes: number; reposts: number; comments: number }> = {
      [x.id]: { plays: 4, likes: 0, reposts: 0, comments: 0 },
      [y.id]: { plays: 0, likes: 1, reposts: 0, comments: 1 },
      [z.id]: { plays: 1, likes: 0, reposts: 1, comments: 0 },
    };
    // Plays count once per listener and track within 30 s (R9), remembered in the shared Redis:
    // forget what an earlier run with the same ids left there.
    const redis = catalog().infra.redis;
    for (const id of Object.keys(actions)) await redis.del(...listeners.map((l) => `catalog:play:${id}:u${l.userId}`));
    for (const [id, a] of Object.entries(actions)) {
      for (const l of listeners.slice(0, a.plays)) expect((await api('POST', `/api/tracks/${id}/play`, l, {})).status).toBe(200);
      for (const l of listeners.slice(0, a.likes)) expect((await api('POST', `/api/tracks/${id}/like`, l)).status).toBe(200);
      for (const l of listeners.slice(0, a.reposts)) expect((await api('POST', `/api/tracks/${id}/repost`, l)).status).toBe(200);
      for (const l of listeners.slice(0, a.comments)) expect((await api('POST', `/api/tracks/${id}/comments`, l, { body: 'nice' })).status).toBe(201);
    }
    const score = (id: number) => actions[id]!.plays + 3 * actions[id]!.likes + 5 * actions[id]!.reposts + 2 * actions[id]!.comments;
    const expectedOrder = [x.id, y.id, z.id].sort((p, q) => score(q) - score(p) || q - p);
    let body = TrendingPage.parse({ content: [], pageNumber: 0, pageSize: 1, totalElements: 0, totalPages: 0, isLast: true });
    await waitFor(
      async () => {
        body = TrendingPage.parse((await api('GET', '/api/explore/trending?genre=trendwave')).body);
        return JSON.stringify(body.content.map((t) => t.id)) === JSON.stringify(expectedOrder);
      },
      { timeoutMs: 10_000, message: 'trending order' },
    );
    expect(body.content.map((t) => t.trendingRank)).toEqual([1, 2, 3]);
    const second = TrendingPage.parse((await api('GET', '/api/explore/trending?genre=Trendwave&limit=1&page=1')).body);
    expect(second).toMatchObject({ totalElements: 3, pageSize: 1 });
    expect(second.content.map((t) => [t.id, t.trendingRank])).toEqual([[expectedOrder[1], 2]]);
    const all = TrendingPage.parse((await api('GET', '/api/explore/trending?size=100')).body);
    expect(all.content.map((t) => t.id)).toEqual(expect.arrayContaining(expectedOrder));
    expect(all.content.map((t) => t.trendingRank)).toEqual(all.content.map((_, i) => i + 1));
    expect(TrendingPage.parse((await api('GET', '/api/explore/trending?genre=no-such-genre')).body).totalElements).toBe(0);
  }, 60_000);
});

describe('DSC-6 / DSC-7 stations (R18) through the gateway', () => {
  it("artist station holds the artist's and similar artists' public playable tracks, in the same order twice a day", async () => {
    const own = await track(users.frank, { title: 'Frank Glide', genre: 'Glitchfolk' });
    const own2 = await track(users.frank, { title: 'Frank Glide Two', genre: 'Glitchfolk' });
    const similar = await track(users.lis5, { title: 'L5 Glitch', genre: 'Glitchfolk' });
    const hidden = await track(users.frank, { title: 'Frank Private', genre: 'Glitchfolk', isPrivate: true });
    const first = RadioPage.parse((await api('GET', `/api/stations/artist?artistId=${users.frank.userId}&size=100`)).body);
    const ids = first.content.map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining([own.id, own2.id, similar.id]));
    expect(ids).not.toContain(hidden.id);
    expect(first.totalElements).toBe(first.content.length);
    const again = RadioPage.parse((await api('GET', `/api/stations/artist?artistId=${users.frank.userId}&size=100`)).body);
    expect(again.content.map((r) => r.id)).toEqual(ids);
    expect((await api('GET', '/api/stations/artist?artistId=987654')).status).toBe(404);
  });

  it("likes station holds none of the caller's liked tracks, is empty without likes, and keeps its order", async () => {
    const liked = await track(users.frank, { title: 'Folk Liked', genre: 'Glitchfolk' });
    expect((await api('POST', `/api/tracks/${liked.id}/like`, users.lis4)).status).toBe(200);
    let page = RadioPage.parse({ content: [], pageNumber: 0, pageSize: 1, totalElements: 0, totalPages: 0, isLast: true });
    await waitFor(
      async () => {
        page = RadioPage.parse((await api('GET', '/api/stations/likes?size=100', users.lis4)).body);
        return page.content.length > 0;
      },
      { message: 'likes station stayed empty' },
    );
    expect(page.totalElements).toBe(page.content.length);
    expect(page.content.map((r) => r.id)).not.toContain(liked.id);
    expect(page.content.every((r) => r.artist.id === users.frank.userId || r.genre === 'Glitchfolk')).toBe(true);
    const again = RadioPage.parse((await api('GET', '/api/stations/likes?size=100', users.lis4)).body);
    expect(again.content.map((r) => r.id)).toEqual(page.content.map((r) => r.id));
    expect(RadioPage.parse((await api('GET', '/api/stations/likes', users['queen-b'])).body).totalElements).toBe(0);
    expect((await api('GET', '/api/stations/likes')).status).toBe(401);
  });
});

describe('DSC-1 … DSC-7 bad input', () => {
  it('answers every bad request with a 4xx ErrorResponse, never 500', async () => {
    const bad: Array<[string, User | null]> = [
      ['/api/feed?size=0', users.anna],
      ['/api/feed?page=-1', users.anna],
      ['/api/feed?size=abc', users.anna],
      ['/api/explore/trending?limit=0', null],
      ['/api/explore/trending?size=101', null],
      ['/api/explore/trending?genre=' + 'g'.repeat(101), null],
      ['/api/search', null],
      ['/api/search?q=a&type=SONGS', null],
      ['/api/search?q=a&page=1.5', null],
      ['/api/search?q=a&genre=', null],
      ['/api/resolve', null],
      ['/api/resolve?url=', null],
      ['/api/resolve?url=' + 'a'.repeat(3000), null],
      ['/api/resolve?url=%2F%2F%2F', null],
      ['/api/stations/genre', null],
      ['/api/stations/genre?genre=house&size=0', null],
      ['/api/stations/genre?genre=%00', null],
      ['/api/explore/trending?genre=a%00', null],
      ['/api/stations/artist', null],
      ['/api/stations/artist?artistId=0', null],
      ['/api/stations/artist?artistId=1e3', null],
      ['/api/stations/likes?size=1000', users.anna],
    ];
    for (const [path, who] of bad) {
      const res = await api('GET', path, who);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(ErrorResponseSchema.parse(res.body).status).toBe(res.status);
    }
    for (const q of ["'", '&|!:*()', '\\', '%', '"a" & b', '🎵', 'a'.repeat(100)])
      expect((await api('GET', `/api/search?q=${encodeURIComponent(q)}`)).status).toBe(200);
  });
});

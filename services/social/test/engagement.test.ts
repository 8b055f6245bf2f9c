import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TrackSchema, type Track } from '@msp/contracts';
import { as, outbox, seedPlaylist, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;
const inject = (options: InjectOptions) => h.app.inject(options);

const ARTIST = 10;
const LISTENERS = Array.from({ length: 40 }, (_, i) => 100 + i);

beforeAll(async () => {
  h = await startSocial('social_engagement');
  await seedUsers(h.app, [
    { id: ARTIST, username: 'artist', role: 'ARTIST' },
    { id: 11, username: 'lena' },
    { id: 12, username: 'mo', isPrivate: true },
    { id: 13, username: 'nia' },
    ...LISTENERS.map((id) => ({ id, username: `listener${id}` })),
  ]);
  await seedTrack(h.app, { id: 1, artistId: ARTIST });
  await seedTrack(h.app, { id: 2, artistId: ARTIST, isPrivate: true });
  await seedTrack(h.app, { id: 3, artistId: ARTIST, state: 'PROCESSING', durationSeconds: null });
  await seedTrack(h.app, { id: 4, artistId: ARTIST });
  await seedPlaylist(h.app, { id: 1, ownerId: ARTIST });
  await seedPlaylist(h.app, { id: 2, ownerId: ARTIST, isPrivate: true });
});

afterAll(async () => {
  await h?.close();
});

describe('ENG-1 like a track / ENG-2 unlike a track', () => {
  it('keeps likeCount exact under concurrent likes and unlikes, one event per change with the new count', async () => {
    const likes = await Promise.all(LISTENERS.map((id) => inject({ method: 'POST', url: '/api/tracks/1/like', headers: as(id) })));
    expect(likes.every((r) => r.statusCode === 200)).toBe(true);
    expect(likes.map((r) => r.json().likeCount).sort((a, b) => a - b)).toEqual(LISTENERS.map((_, i) => i + 1));
    const unlikes = await Promise.all(LISTENERS.slice(0, 15).map((id) => inject({ method: 'DELETE', url: '/api/tracks/1/like', headers: as(id) })));
    expect(unlikes.every((r) => r.json().isLiked === false)).toBe(true);
    const again = await inject({ method: 'POST', url: `/api/tracks/1/like`, headers: as(LISTENERS[39]!) });
    expect(again.json()).toEqual({ message: expect.any(String), isLiked: true, likeCount: 25 });
    const track = await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: 1 } });
    expect(track.likeCount).toBe(25);
    expect(await h.app.infra.prisma.trackLike.count({ where: { trackId: 1 } })).toBe(25);
    const liked = await outbox(h.app, 'social.item.liked.v1');
    expect(liked).toHaveLength(40);
    expect(liked.at(-1)).toMatchObject({ targetType: 'TRACK', targetId: 1, ownerId: ARTIST, likeCount: 40 });
    expect((await outbox(h.app, 'social.item.unliked.v1')).at(-1)).toMatchObject({ likeCount: 25 });
  });

  it('liking twice leaves one like; unliking twice is harmless', async () => {
    await inject({ method: 'POST', url: '/api/tracks/4/like', headers: as(11) });
    const second = await inject({ method: 'POST', url: '/api/tracks/4/like', headers: as(11) });
    expect(second.json()).toMatchObject({ isLiked: true, likeCount: 1 });
    await inject({ method: 'DELETE', url: '/api/tracks/4/like', headers: as(11) });
    const twice = await inject({ method: 'DELETE', url: '/api/tracks/4/like', headers: as(11) });
    expect(twice.json()).toMatchObject({ isLiked: false, likeCount: 0 });
  });

  it('answers 404 for tracks the caller cannot see (private, unfinished, unknown), but the artist may like their own', async () => {
    for (const id of [2, 3, 999]) {
      const res = await inject({ method: 'POST', url: `/api/tracks/${id}/like`, headers: as(11) });
      expect(res.statusCode, String(id)).toBe(404);
      expect(res.json().code).toBe('TRACK_NOT_FOUND');
    }
    expect((await inject({ method: 'POST', url: '/api/tracks/2/like', headers: as(ARTIST) })).statusCode).toBe(200);
    expect((await inject({ method: 'POST', url: '/api/tracks/2/like', headers: as(1, 'ADMIN') })).statusCode).toBe(200);
  });
});

describe('ENG-4 repost a track / ENG-5 remove track repost', () => {
  it('reposts idempotently and refuses reposting your own track', async () => {
    const res = await inject({ method: 'POST', url: '/api/tracks/1/repost', headers: as(11) });
    expect(res.json()).toEqual({ message: expect.any(String), isReposted: true, repostCount: 1 });
    expect((await inject({ method: 'POST', url: '/api/tracks/1/repost', headers: as(11) })).json().repostCount).toBe(1);
    const own = await inject({ method: 'POST', url: '/api/tracks/1/repost', headers: as(ARTIST) });
    expect(own.statusCode).toBe(400);
    expect(own.json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    await inject({ method: 'POST', url: '/api/tracks/4/repost', headers: as(11) });
    await inject({ method: 'POST', url: '/api/tracks/4/repost', headers: as(13) });
    const removed = await inject({ method: 'DELETE', url: '/api/tracks/4/repost', headers: as(13) });
    expect(removed.json()).toMatchObject({ isReposted: false, repostCount: 1 });
    expect((await outbox(h.app, 'social.item.reposted.v1')).length).toBe(3);
    expect((await outbox(h.app, 'social.item.unreposted.v1')).length).toBe(1);
  });
});

describe('ENG-7 … ENG-12 playlists', () => {
  it('likes and reposts playlists, lists likers and reposters, hides private ones', async () => {
    expect((await inject({ method: 'POST', url: '/api/playlists/1/like', headers: as(11) })).json()).toMatchObject({ isLiked: true, likeCount: 1 });
    expect((await inject({ method: 'POST', url: '/api/playlists/1/repost', headers: as(11) })).json()).toMatchObject({ repostCount: 1 });
    expect((await inject({ method: 'POST', url: '/api/playlists/1/repost', headers: as(ARTIST) })).json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    expect((await inject({ method: 'POST', url: '/api/playlists/2/like', headers: as(11) })).json().code).toBe('PLAYLIST_NOT_FOUND');
    const likers = (await inject({ method: 'GET', url: '/api/users/playlists/1/like' })).json();
    expect(likers.content.map((u: { id: number }) => u.id)).toEqual([11]);
    const reposters = (await inject({ method: 'GET', url: '/api/users/playlists/1/reposters' })).json();
    expect(reposters.totalElements).toBe(1);
    expect((await inject({ method: 'DELETE', url: '/api/playlists/1/like', headers: as(11) })).json()).toMatchObject({ isLiked: false, likeCount: 0 });
    expect((await inject({ method: 'DELETE', url: '/api/playlists/1/repost', headers: as(11) })).json()).toMatchObject({ repostCount: 0 });
    await inject({ method: 'POST', url: '/api/playlists/1/like', headers: as(11) });
  });
});

describe('ENG-3 track likers / ENG-6 track reposters', () => {
  it('lists latest first with the caller-relative isFollowing and hides users across a block (R7)', async () => {
    await h.app.infra.prisma.follow.create({ data: { followerId: 13, followeeId: 11 } });
    await inject({ method: 'POST', url: '/api/tracks/1/like', headers: as(13) });
    const page = (await inject({ method: 'GET', url: '/api/users/tracks/1/like?size=5', headers: as(13) })).json();
    expect(page).toMatchObject({ totalElements: 26, pageSize: 5, totalPages: 6, isLast: false });
    expect(page.content[0]).toMatchObject({ id: 13, isFollowing: false });
    const reposters = (await inject({ method: 'GET', url: '/api/users/tracks/1/reposters', headers: as(13) })).json();
    expect(reposters.content).toEqual([expect.objectContaining({ id: 11, isFollowing: true })]);
    await h.app.infra.prisma.block.create({ data: { blockerId: 11, blockedId: 13 } });
    expect((await inject({ method: 'GET', url: '/api/users/tracks/1/reposters', headers: as(13) })).json().totalElements).toBe(0);
    expect((await inject({ method: 'GET', url: '/api/users/tracks/1/reposters' })).json().totalElements).toBe(1);
    expect((await inject({ method: 'GET', url: '/api/users/tracks/2/like' })).statusCode).toBe(404);
    await h.app.infra.prisma.block.deleteMany({ where: { blockerId: 11 } });
  });
});

describe('USR-20 / ENG-20 liked tracks, USR-21 liked playlists, USR-22 / ENG-18 reposted tracks, ENG-19 repost history', () => {
  it('renders Track (full) records with counts and flags, latest first, only visible tracks', async () => {
    await inject({ method: 'POST', url: '/api/tracks/4/like', headers: as(11) });
    const mine = await inject({ method: 'GET', url: '/api/users/me/liked-tracks', headers: as(11) });
    expect(mine.statusCode).toBe(200);
    const page = mine.json();
    expect(page.content.map((t: { id: number }) => t.id)).toEqual([4]);
    const track = TrackSchema.strict().parse(page.content[0]);
    expect(track).toMatchObject({ id: 4, isLiked: true, isReposted: true, likeCount: 1, repostCount: 1, state: 'FINISHED', releaseDate: '2026-01-01' });
    expect(track.artist).toMatchObject({ id: ARTIST, username: 'artist' });
    // As seen by someone else: same list, the viewer's own flags.
    const other = (await inject({ method: 'GET', url: '/api/users/lena/liked-tracks', headers: as(13) })).json();
    expect(other.content[0]).toMatchObject({ id: 4, isLiked: false, isReposted: false });
    // The artist's private track liked by the artist shows to the artist only.
    expect((await inject({ method: 'GET', url: '/api/users/artist/liked-tracks', headers: as(ARTIST) })).json().totalElements).toBe(1);
    expect((await inject({ method: 'GET', url: '/api/users/artist/liked-tracks' })).json().totalElements).toBe(0);
  });

  it('lists reposted tracks with repostedBy and repostedAt', async () => {
    const page = (await inject({ method: 'GET', url: '/api/users/lena/reposted-tracks' })).json();
    expect(page.content.map((t: { id: number }) => t.id)).toEqual([4, 1]);
    expect(page.content[0].repostedBy).toMatchObject({ id: 11, username: 'lena' });
    expect(page.content[0].repostedAt).toMatch(/Z$/);
    const mine = (await inject({ method: 'GET', url: '/api/users/me/repost', headers: as(11) })).json();
    expect(mine.totalElements).toBe(2);
  });

  it('lists liked playlists and the repost history of tracks and playlists', async () => {
    const playlists = (await inject({ method: 'GET', url: '/api/users/lena/liked-playlists', headers: as(11) })).json();
    expect(playlists.content).toHaveLength(1);
    expect(playlists.content[0]).toMatchObject({ id: 1, isLiked: true, likeCount: 1, owner: { id: ARTIST }, paginatedTrackResponse: null });
    await inject({ method: 'POST', url: '/api/playlists/1/repost', headers: as(11) });
    const history = (await inject({ method: 'GET', url: '/api/users/repost/lena' })).json();
    expect(history.content.map((e: { type: string; id: number }) => `${e.type}:${e.id}`)).toEqual(['PLAYLIST:1', 'TRACK:4', 'TRACK:1']);
    expect(history.content[0]).toEqual({ type: 'PLAYLIST', id: 1, title: 'Playlist 1', slug: 'playlist-1', coverUrl: null, repostedAt: expect.any(String) });
  });

  it("R8: a private user's lists answer 403 PROFILE_PRIVATE to others, not to the user or admins", async () => {
    for (const url of ['/api/users/mo/liked-tracks', '/api/users/mo/liked-playlists', '/api/users/mo/reposted-tracks', '/api/users/repost/mo']) {
      const other = await inject({ method: 'GET', url, headers: as(11) });
      expect(other.statusCode, url).toBe(403);
      expect(other.json().code).toBe('PROFILE_PRIVATE');
      expect((await inject({ method: 'GET', url })).statusCode).toBe(403);
      expect((await inject({ method: 'GET', url, headers: as(12) })).statusCode).toBe(200);
      expect((await inject({ method: 'GET', url, headers: as(1, 'ADMIN') })).statusCode).toBe(200);
    }
    expect((await inject({ method: 'GET', url: '/api/users/nobody/liked-tracks' })).statusCode).toBe(404);
  });

  it("the caller's own lists work before identity's registration event reached social", async () => {
    await inject({ method: 'POST', url: '/api/tracks/4/like', headers: as(777) });
    const liked = (await inject({ method: 'GET', url: '/api/users/me/liked-tracks', headers: as(777) })).json();
    expect(liked.content.map((t: { id: number }) => t.id)).toEqual([4]);
    expect((await inject({ method: 'GET', url: '/api/users/me/repost', headers: as(777) })).json().totalElements).toBe(0);
    await inject({ method: 'DELETE', url: '/api/tracks/4/like', headers: as(777) });
  });
});

/** Track (full) as catalog renders it: its own fields, and engagement data that may lag behind social's. */
function catalogTrack(id: number): Track {
  return {
    id,
    title: `Catalog title ${id}`,
    trackSlug: `track-${id}`,
    artist: { id: ARTIST, username: 'artist', displayName: 'Stale', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 5000, trackCount: 2 },
    description: `Catalog description ${id}`,
    genre: 'Techno',
    tags: ['from-catalog'],
    releaseDate: '2025-12-31',
    uploadDate: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
    publishedAt: '2026-01-01T00:00:00.000Z',
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    trackUrl: `http://media.test/api/media/tracks/${id}/full.m4a?s=1`,
    trackPreviewUrl: `http://media.test/api/media/tracks/${id}/preview.m4a?s=1`,
    hlsUrl: `http://media.test/api/media/tracks/${id}/index.m3u8?s=1`,
    coverUrl: 'http://media.test/api/media/assets/c/cover.jpg',
    waveformUrl: 'http://media.test/api/media/assets/w/waveform.json',
    trackDurationSeconds: 180,
    playCount: 99,
    completedPlayCount: 33,
    likeCount: 999,
    repostCount: 999,
    commentCount: 999,
    isLiked: false,
    isReposted: false,
    secretToken: null,
  };
}

describe('USR-20 / USR-22 / ENG-18 / ENG-20 Track (full) records rendered by catalog', () => {
  type TrackPage = { content: Array<Track & { repostedBy?: { id: number }; repostedAt?: string }>; totalElements: number };
  const get = async (url: string, headers?: Record<string, string>) => {
    const res = await inject({ method: 'GET', url, ...(headers ? { headers } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as TrackPage;
  };

  beforeEach(() => {
    h.catalog.mode = 'render';
    h.catalog.tracks = new Map([1, 4].map((id) => [id, catalogTrack(id)]));
    h.catalog.requests.length = 0;
  });
  afterAll(() => {
    h.catalog.mode = 'down';
  });

  it("USR-20: catalog's fields and media URLs, social's flags, counts and artist, one catalog call per page", async () => {
    h.catalog.mode = 'down';
    const own = (await get('/api/users/me/liked-tracks', as(11))).content[0]!;
    h.catalog.mode = 'render';
    h.catalog.requests.length = 0;
    const page = await get('/api/users/me/liked-tracks', as(11));
    expect(page.content.map((t) => t.id)).toEqual([4]);
    const track = TrackSchema.strict().parse(page.content[0]);
    const { artist: _a, likeCount: _l, repostCount: _r, commentCount: _c, isLiked: _il, isReposted: _ir, ...catalogOwned } = catalogTrack(4);
    expect(track).toMatchObject(catalogOwned);
    expect(track).toMatchObject({
      isLiked: true,
      isReposted: true,
      likeCount: own.likeCount,
      repostCount: own.repostCount,
      commentCount: own.commentCount,
      artist: own.artist,
    });
    expect(h.catalog.requests).toEqual([{ viewerId: 11, viewerRole: 'LISTENER', trackIds: [4] }]);
  });

  it("USR-22 / ENG-18: repostedBy and repostedAt stay social's; anonymous and admin viewers are passed on", async () => {
    const page = await get('/api/users/lena/reposted-tracks');
    expect(page.content.map((t) => t.id)).toEqual([4, 1]);
    expect(page.content[0]).toMatchObject({
      description: 'Catalog description 4',
      playCount: 99,
      repostedBy: { id: 11 },
      repostedAt: expect.stringMatching(/Z$/),
    });
    expect(page.content.every((t) => !t.isLiked && !t.isReposted)).toBe(true);
    const mine = await get('/api/users/me/repost', as(11, 'ADMIN'));
    expect(mine.content.map((t) => [t.id, t.isReposted, t.tags])).toEqual([
      [4, true, ['from-catalog']],
      [1, true, ['from-catalog']],
    ]);
    expect(h.catalog.requests).toEqual([
      { viewerId: null, viewerRole: 'LISTENER', trackIds: [4, 1] },
      { viewerId: 11, viewerRole: 'ADMIN', trackIds: [4, 1] },
    ]);
  });

  it("ENG-20: a track catalog leaves out (invisible to the viewer) is dropped; the total stays social's", async () => {
    h.catalog.tracks.delete(1);
    const page = await get('/api/users/lena/reposted-tracks', as(13));
    expect(page.content.map((t) => t.id)).toEqual([4]);
    expect(page.totalElements).toBe(2);
    const liked = await get('/api/users/lena/liked-tracks', as(13));
    expect(liked.content.map((t) => [t.id, t.description])).toEqual([[4, 'Catalog description 4']]);
  });

  it("falls back to social's copy when catalog answers an error or too late", async () => {
    for (const mode of ['down', 'slow'] as const) {
      h.catalog.mode = mode;
      const started = Date.now();
      const page = await get('/api/users/lena/reposted-tracks');
      expect(Date.now() - started, mode).toBeLessThan(1400);
      expect(
        page.content.map((t) => [t.id, t.description, t.playCount, t.trackUrl]),
        mode,
      ).toEqual([
        [4, null, 0, null],
        [1, null, 0, null],
      ]);
      expect(page.content[0]!.title, mode).toBe('Track 4');
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, FeedItemSchema, pageSchema } from '@msp/contracts';
import { as, seedPlaylist, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;
const A = 1,
  B = 2,
  C = 3,
  D = 4;
const FeedPage = pageSchema(FeedItemSchema.strict());

async function feed(userId: number, query = '') {
  const res = await h.app.inject({ method: 'GET', url: `/api/feed${query}`, headers: as(userId) });
  expect(res.statusCode).toBe(200);
  return FeedPage.parse(res.json());
}
const post = (userId: number, url: string) => h.app.inject({ method: 'POST', url, headers: as(userId) });
const sql = (text: string, ...params: unknown[]) => h.app.infra.prisma.$executeRawUnsafe(text, ...params);
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const summary = (page: Awaited<ReturnType<typeof feed>>) => page.content.map((i) => [i.type, i.resource.id, i.actor.id]);

beforeAll(async () => {
  h = await startSocial('social_feed');
  await seedUsers(h.app, [
    { id: A, username: 'anna' },
    { id: B, username: 'ben', role: 'ARTIST' },
    { id: C, username: 'cleo' },
    { id: D, username: 'dave', role: 'ARTIST' },
  ]);
  await seedTrack(h.app, { id: 10, artistId: B });
  await seedTrack(h.app, { id: 11, artistId: D });
  await seedTrack(h.app, { id: 12, artistId: B, isPrivate: true });
  await seedTrack(h.app, { id: 13, artistId: A });
  await seedPlaylist(h.app, { id: 20, ownerId: D });
  await sql('UPDATE track_refs SET published_at = NULL WHERE track_id = 12');
  for (const [who, url] of [
    [A, `/api/users/${B}/follow`],
    [A, `/api/users/${C}/follow`],
    [C, '/api/playlists/20/repost'],
    [B, '/api/tracks/11/like'],
    [A, '/api/tracks/10/like'],
    [A, '/api/tracks/11/repost'],
  ] as const)
    expect((await post(who, url)).statusCode).toBeLessThan(300);
  // A fixed timeline: B posted 10 (30 min ago), C reposted playlist 20 (20), B liked D's 11 (10).
  await sql('UPDATE track_refs SET published_at = $1 WHERE track_id = 10', minutesAgo(30));
  await sql('UPDATE track_refs SET published_at = $1 WHERE track_id IN (11, 13)', minutesAgo(300));
  await sql('UPDATE playlist_reposts SET created_at = $1 WHERE user_id = $2', minutesAgo(20), C);
  await sql('UPDATE track_likes SET created_at = $1 WHERE user_id = $2', minutesAgo(10), B);
});

afterAll(async () => {
  await h?.close();
});

describe('DSC-1 feed (R18)', () => {
  it("holds the followed users' posts, reposts and likes, newest first, each with its actor, never the caller's own actions", async () => {
    const page = await feed(A);
    expect(summary(page)).toEqual([
      ['TRACK_LIKED', 11, B],
      ['PLAYLIST_REPOSTED', 20, C],
      ['TRACK_POSTED', 10, B],
    ]);
    expect(page.totalElements).toBe(3);
    const [liked, reposted, posted] = page.content;
    expect(liked).toMatchObject({ likedBy: { id: B }, repostedBy: null, resource: { type: 'TRACK', track: { id: 11, isReposted: true }, playlist: null } });
    expect(reposted).toMatchObject({ repostedBy: { id: C }, likedBy: null, resource: { type: 'PLAYLIST', playlist: { id: 20 }, repostedBy: { id: C } } });
    expect(posted).toMatchObject({ likedBy: null, repostedBy: null, actor: { id: B, isFollowing: true }, resource: { track: { id: 10, isLiked: true } } });
    expect(new Set(page.content.map((i) => i.id)).size).toBe(3);
  });

  it('shows an item several followed users acted on once, at its newest time, with one actor', async () => {
    expect((await post(C, '/api/tracks/11/like')).statusCode).toBe(200);
    const page = await feed(A);
    expect(summary(page)[0]).toEqual(['TRACK_LIKED', 11, C]);
    expect(page.content.filter((i) => i.resource.id === 11 && i.resource.type === 'TRACK')).toHaveLength(1);
    expect(page.totalElements).toBe(3);
    await sql('UPDATE track_likes SET created_at = $1 WHERE user_id = $2', minutesAgo(40), C);
    expect(summary(await feed(A))[0]).toEqual(['TRACK_LIKED', 11, B]);
  });

  it('gives the same items to a user following many (newest-first walk) as to one following few', async () => {
    const few = summary(await feed(A));
    const crowd = Array.from({ length: 220 }, (_, i) => 5000 + i);
    await seedUsers(
      h.app,
      crowd.map((id) => ({ id, username: `crowd${id}` })),
    );
    await sql('INSERT INTO follows (follower_id, followee_id) SELECT $1, unnest($2::int[])', A, crowd);
    expect(summary(await feed(A))).toEqual(few);
    await sql('DELETE FROM follows WHERE follower_id = $1 AND followee_id >= 5000', A);
  });

  it('pages with a total that matches the content', async () => {
    const first = await feed(A, '?size=2');
    const second = await feed(A, '?size=2&page=1');
    expect(first).toMatchObject({ totalElements: 3, totalPages: 2, isLast: false });
    expect(second.content).toHaveLength(1);
    expect(await feed(A, '?size=2&page=5')).toMatchObject({ content: [], totalElements: 3, isLast: true });
  });

  it('never shows private or deleted tracks, nor anything across a block', async () => {
    await sql('UPDATE track_refs SET is_private = true WHERE track_id = 10');
    expect(summary(await feed(A)).map((s) => s[1])).not.toContain(10);
    await sql('UPDATE track_refs SET is_private = false WHERE track_id = 10');
    await sql('UPDATE track_refs SET is_deleted = true WHERE track_id = 10');
    expect((await feed(A)).totalElements).toBe(2);
    await sql('UPDATE track_refs SET is_deleted = false WHERE track_id = 10');
    expect((await post(D, `/api/users/${A}/block`)).statusCode).toBeLessThan(300);
    expect(summary(await feed(A))).toEqual([['TRACK_POSTED', 10, B]]);
    expect((await h.app.inject({ method: 'DELETE', url: `/api/users/${A}/block`, headers: as(D) })).statusCode).toBeLessThan(300);
  });

  it("drops an unfollowed user's items", async () => {
    expect((await h.app.inject({ method: 'DELETE', url: `/api/users/${C}/follow`, headers: as(A) })).statusCode).toBeLessThan(300);
    expect(summary(await feed(A)).map((s) => s[2])).not.toContain(C);
  });

  it("renders the page's tracks with one call to catalog", async () => {
    h.catalog.requests.length = 0;
    await feed(A);
    expect(h.catalog.requests.filter((r) => r.trackIds.length > 0)).toHaveLength(1);
  });

  it('answers 401 without a caller and 400 for bad paging', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/api/feed' })).statusCode).toBe(401);
    for (const q of ['?size=0', '?size=101', '?page=-1', '?page=x']) {
      const res = await h.app.inject({ method: 'GET', url: `/api/feed${q}`, headers: as(A) });
      expect(res.statusCode).toBe(400);
      expect(ErrorResponseSchema.parse(res.json()).code).toBe('VALIDATION_FAILED');
    }
  });
});

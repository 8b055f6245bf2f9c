import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, seedPlaylist, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;
const inject = (options: InjectOptions) => h.app.inject(options);

const ARTIST = 10;
/** The private user whose likes, reposts and follows are in others' lists. */
const PIA = 20;
/** A signed-in stranger. */
const SAM = 21;
/** Follows the private user: R8 grants followers nothing more than anyone else. */
const FAN = 22;
const ADMIN = 1;
/** Public users acting before and after the private one, so that she sits in the middle of each list. */
const [L1, L2, L3, L4] = [31, 32, 33, 34];
const ACTORS = [L1, L2, PIA, L3, L4];

const LISTS = [
  { id: 'ENG-3', write: '/api/tracks/1/like', list: '/api/users/tracks/1/like' },
  { id: 'ENG-6', write: '/api/tracks/1/repost', list: '/api/users/tracks/1/reposters' },
  { id: 'ENG-9', write: '/api/playlists/1/like', list: '/api/users/playlists/1/like' },
  { id: 'ENG-12', write: '/api/playlists/1/repost', list: '/api/users/playlists/1/reposters' },
  { id: 'FOL-3', write: `/api/users/${ARTIST}/follow`, list: `/api/users/${ARTIST}/followers` },
];

type Viewer = { name: string; headers: Record<string, string> };
const hidden: Viewer[] = [
  { name: 'anonymous', headers: {} },
  { name: 'stranger', headers: as(SAM) },
  { name: 'her follower', headers: as(FAN) },
  // The owner of the liked item (and the followed user) is no exception either.
  { name: 'the artist', headers: as(ARTIST, 'ARTIST') },
];
const shown: Viewer[] = [
  { name: 'herself', headers: as(PIA) },
  { name: 'an admin', headers: as(ADMIN, 'ADMIN') },
];

interface Page {
  content: Array<{ id: number }>;
  totalElements: number;
  totalPages: number;
  isLast: boolean;
}

async function page(url: string, viewer: Viewer, n: number, size: number): Promise<Page> {
  const res = await inject({ method: 'GET', url: `${url}?page=${n}&size=${size}`, headers: viewer.headers });
  expect(res.statusCode, `${url} for ${viewer.name}`).toBe(200);
  return res.json() as Page;
}

/** Every page of a list, in order, checking that each page but the last is full. */
async function walk(url: string, viewer: Viewer, size: number) {
  const first = await page(url, viewer, 0, size);
  const ids = first.content.map((u) => u.id);
  for (let n = 1; n < first.totalPages; n++) {
    const next = await page(url, viewer, n, size);
    expect(next.totalElements, `${url} total on page ${n} for ${viewer.name}`).toBe(first.totalElements);
    expect(next.content.length === size || next.isLast, `${url} page ${n} full for ${viewer.name}`).toBe(true);
    ids.push(...next.content.map((u) => u.id));
  }
  if (first.totalPages > 1) expect(first.content, `${url} page 0 full for ${viewer.name}`).toHaveLength(size);
  return { ids, total: first.totalElements, totalPages: first.totalPages };
}

beforeAll(async () => {
  h = await startSocial('social_private_in_lists');
  await seedUsers(h.app, [
    { id: ADMIN, username: 'root', role: 'ADMIN' },
    { id: ARTIST, username: 'artist', role: 'ARTIST' },
    { id: PIA, username: 'pia', isPrivate: true },
    { id: SAM, username: 'sam' },
    { id: FAN, username: 'fan' },
    ...[L1, L2, L3, L4].map((id) => ({ id, username: `listener${id}` })),
  ]);
  await seedTrack(h.app, { id: 1, artistId: ARTIST });
  await seedPlaylist(h.app, { id: 1, ownerId: ARTIST });
  expect((await inject({ method: 'POST', url: `/api/users/${PIA}/follow`, headers: as(FAN) })).statusCode).toBe(200);
  // One actor at a time, so the lists' order (newest first) is the reverse of ACTORS.
  for (const { write } of LISTS) {
    for (const actor of ACTORS) expect((await inject({ method: 'POST', url: write, headers: as(actor) })).statusCode, `${write} by ${actor}`).toBe(200);
  }
});

afterAll(async () => {
  await h?.close();
});

describe("R8: a private user's likes, reposts and follows are left out of others' lists (ENG-3, ENG-6, ENG-9, ENG-12, FOL-3)", () => {
  it('leaves her out for anonymous callers, strangers, her followers and the item owner, with full pages and true totals', async () => {
    const others = [...ACTORS].reverse().filter((id) => id !== PIA);
    for (const { id, list } of LISTS) {
      for (const viewer of hidden) {
        const { ids, total, totalPages } = await walk(list, viewer, 2);
        expect(ids, `${id} for ${viewer.name}`).toEqual(others);
        expect(total, `${id} for ${viewer.name}`).toBe(4);
        expect(totalPages).toBe(2);
      }
    }
  });

  it('lists her for herself and for admins', async () => {
    for (const { id, list } of LISTS) {
      for (const viewer of shown) {
        const { ids, total, totalPages } = await walk(list, viewer, 2);
        expect(ids, `${id} for ${viewer.name}`).toEqual([...ACTORS].reverse());
        expect(total).toBe(5);
        expect(totalPages).toBe(3);
      }
    }
  });

  it('still counts her in likeCount, repostCount and followerCount', async () => {
    const track = await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: 1 } });
    expect([track.likeCount, track.repostCount]).toEqual([5, 5]);
    const playlist = await h.app.infra.prisma.playlistRef.findUniqueOrThrow({ where: { playlistId: 1 } });
    expect([playlist.likeCount, playlist.repostCount]).toEqual([5, 5]);
    // The answers of the idempotent writes carry the stored counts too.
    expect((await inject({ method: 'POST', url: '/api/tracks/1/like', headers: as(L1) })).json().likeCount).toBe(5);
    expect((await inject({ method: 'POST', url: `/api/users/${ARTIST}/follow`, headers: as(L1) })).json().followerCount).toBe(5);
  });

  it('keeps her in the following lists of the users she follows back (their follow, not her activity)', async () => {
    const following = await page(`/api/users/${FAN}/following`, hidden[1]!, 0, 20);
    expect(following.content.map((u) => u.id)).toEqual([PIA]);
    // Her own following list stays 403 PROFILE_PRIVATE for others.
    const own = await inject({ method: 'GET', url: `/api/users/${PIA}/following`, headers: as(SAM) });
    expect(own.json().code).toBe('PROFILE_PRIVATE');
  });

  it('lists her again as soon as her profile turns public, and hides her again when it turns private', async () => {
    await h.app.infra.prisma.userSummary.update({ where: { userId: PIA }, data: { isPrivate: false } });
    try {
      const { ids, total } = await walk('/api/users/tracks/1/like', hidden[0]!, 2);
      expect(ids).toContain(PIA);
      expect(total).toBe(5);
    } finally {
      await h.app.infra.prisma.userSummary.update({ where: { userId: PIA }, data: { isPrivate: true } });
    }
    expect((await walk(`/api/users/${ARTIST}/followers`, hidden[0]!, 2)).ids).not.toContain(PIA);
  });
});

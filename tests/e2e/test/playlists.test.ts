import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, pageSchema, PlaylistSchema, type Playlist, type Role } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import { Fleet } from './fleet.js';

const fleet = new Fleet();
const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;

type User = { userId: number; username: string; token: string };
const users: Record<'owner' | 'other', User> = {} as never;
let adminToken = '';

async function sign(userId: number, username: string, role: Role = 'LISTENER'): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function register(email: string, displayName: string): Promise<User> {
  const res = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, displayName, password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { userId: number; username: string };
  return { ...body, token: await sign(body.userId, body.username) };
}

async function api(method: string, path: string, token: string | null, body?: unknown): Promise<Response> {
  return fleet.fetch(path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

async function finishedTrack(artistId: number, fields: { isPrivate?: boolean; durationSeconds?: number } = {}): Promise<number> {
  const slug = `pl-${randomUUID().slice(0, 8)}`;
  const row = await catalog().infra.prisma.track.create({
    data: {
      artistId,
      title: `Track ${slug}`,
      trackSlug: slug,
      genre: 'Electronic',
      releaseDate: new Date('2026-01-15T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      isPrivate: fields.isPrivate ?? false,
      durationSeconds: fields.durationSeconds ?? 120,
      publishedAt: fields.isPrivate ? null : new Date(),
    },
    select: { id: true },
  });
  return row.id;
}

async function create(user: User, body: Record<string, unknown>): Promise<Playlist> {
  const res = await api('POST', '/api/playlists', user.token, body);
  expect(res.status).toBe(201);
  return PlaylistSchema.parse(await res.json());
}

const ids = (p: Playlist) => p.trackSummaryDto.map((t) => t.id);

/** The Playlist fields existing clients read. */
const INTERFACE_FIELDS = [
  'id',
  'title',
  'type',
  'isLiked',
  'description',
  'isPrivate',
  'coverArtUrl',
  'playlistSlug',
  'totalDurationSeconds',
  'trackCount',
  'secretToken',
  'owner',
  'genres',
  'createdAt',
  'trackSummaryDto',
  'firstTrackWaveformUrl',
];

beforeAll(async () => {
  await fleet.start();
  users.owner = await register('pl-owner@example.com', 'Playlist Owner');
  users.other = await register('pl-other@example.com', 'Playlist Other');
  adminToken = await sign(990_001, 'admin-one', 'ADMIN');
  await waitFor(async () => (await catalog().infra.prisma.userSummary.count({ where: { userId: { in: [users.owner.userId, users.other.userId] } } })) === 2, {
    timeoutMs: 10_000,
    message: 'catalog never saw the registrations',
  });
}, 120_000);

afterAll(async () => {
  await fleet.close();
}, 60_000);

describe('PLS-1 get all playlists created by the current user ', () => {
  it('answers the Page wrapper of Playlists with every §2.4 field and secretToken, for the owner only', async () => {
    const t1 = await finishedTrack(users.owner.userId, { durationSeconds: 100 });
    const t2 = await finishedTrack(users.owner.userId, { durationSeconds: 50 });
    const pub = await create(users.owner, { title: 'Road Songs', description: 'for the car', genre: 'Rock' });
    const priv = await create(users.owner, { title: 'Secret Songs', isPrivate: true });
    for (const p of [pub, priv]) {
      for (const t of [t1, t2]) expect((await api('POST', `/api/playlists/${p.id}/tracks`, users.owner.token, { trackId: t })).status).toBe(200);
    }
    const res = await api('GET', '/api/users/me/playlists?page=0&size=10', users.owner.token);
    expect(res.status).toBe(200);
    const page = pageSchema(PlaylistSchema).parse(await res.json());
    expect(page).toMatchObject({ pageNumber: 0, pageSize: 10, totalElements: 2, totalPages: 1, isLast: true });
    expect(page.content.map((p) => p.id)).toEqual([priv.id, pub.id]);
    for (const item of page.content) {
      for (const field of INTERFACE_FIELDS) expect(item, field).toHaveProperty(field);
      expect(item.secretToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(item.owner).toMatchObject({ id: users.owner.userId, username: users.owner.username });
      expect(item).toMatchObject({ trackCount: 2, totalDurationSeconds: 150, type: 'PLAYLIST', isLiked: false });
      expect(ids(item)).toEqual([t1, t2]);
    }
    expect(page.content[1]!.genres).toEqual(['Rock', 'Electronic']);

    const other = pageSchema(PlaylistSchema).parse(await (await api('GET', '/api/users/me/playlists', users.other.token)).json());
    expect(other.content.filter((p) => p.owner.id === users.owner.userId)).toEqual([]);
    expect((await api('GET', '/api/users/me/playlists', null)).status).toBe(401);
    expect((await api('GET', '/api/users/me/playlists?size=0', users.owner.token)).status).toBe(400);
  });

  it('lists 50 playlists with tracks in a bounded number of SQL queries, independent of the page size', async () => {
    const user = await register('pl-many@example.com', 'Many Lists');
    await waitFor(async () => !!(await catalog().infra.prisma.userSummary.findUnique({ where: { userId: user.userId } })), { message: 'projection' });
    const tracks = await Promise.all([1, 2, 3, 4, 5, 6].map(() => finishedTrack(users.other.userId)));
    const prisma = catalog().infra.prisma;
    for (let i = 0; i < 50; i++) {
      const p = await prisma.playlist.create({
        data: {
          ownerId: user.userId,
          title: `List ${i}`,
          playlistSlug: `many-${i}-${randomUUID().slice(0, 6)}`,
          secretToken: randomBytes(24).toString('base64url'),
        },
      });
      await prisma.playlistTrack.createMany({ data: tracks.map((trackId, j) => ({ playlistId: p.id, trackId, position: j + 1 })) });
    }
    const pool = catalog().infra.pool as unknown as { query: (...args: unknown[]) => unknown };
    const original = pool.query;
    let count = 0;
    pool.query = function (this: unknown, ...args: unknown[]) {
      const sql = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '');
      // The outbox relay and consumers poll in the background; only request queries count.
      if (!/outbox_event|processed_event/.test(sql)) count++;
      return original.apply(pool, args);
    };
    try {
      const measure = async (size: number) => {
        count = 0;
        const res = await api('GET', `/api/users/me/playlists?size=${size}`, user.token);
        expect(res.status).toBe(200);
        const body = pageSchema(PlaylistSchema).parse(await res.json());
        expect(body.content).toHaveLength(size);
        expect(body.content.every((p) => p.trackSummaryDto.length === 5 && p.trackCount === 6)).toBe(true);
        return count;
      };
      const five = await measure(5);
      const fifty = await measure(50);
      expect(fifty).toBeGreaterThan(0);
      expect(fifty).toBeLessThanOrEqual(8);
      // The same statements whatever the size; the tracks' full rows may come from catalog's row
      // cache (TrackRowCache) that the first page filled, which saves one statement.
      expect(fifty).toBeLessThanOrEqual(five);
      expect(fifty).toBeGreaterThanOrEqual(five - 1);
    } finally {
      pool.query = original;
    }
  });
});

describe('PLS-10 reorder tracks inside a playlist ', () => {
  it('reorders a 5-track playlist; refuses non-permutations with 400 INVALID_PLAYLIST_ORDER; a stranger gets 404', async () => {
    const tracks = await Promise.all([1, 2, 3, 4, 5].map(() => finishedTrack(users.owner.userId)));
    const p = await create(users.owner, { title: 'Five' });
    for (const t of tracks) await api('POST', `/api/playlists/${p.id}/tracks`, users.owner.token, { trackId: t });
    const order = [tracks[3]!, tracks[0]!, tracks[4]!, tracks[2]!, tracks[1]!];
    const res = await api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, users.owner.token, { trackIds: order });
    expect(res.status).toBe(200);
    const body = PlaylistSchema.parse(await res.json());
    expect(ids(body)).toEqual(order);
    expect(body.paginatedTrackResponse!.content.map((t) => t.id)).toEqual(order);
    expect(PlaylistSchema.parse(await (await api('GET', `/api/playlists/${p.id}`, null)).json()).trackSummaryDto.map((t) => t.id)).toEqual(order);

    // The Playlist-shaped body of the interface sample: order from paginatedTrackResponse.content.
    const sample = {
      ...body,
      isReposted: false,
      trackSummaryDto: undefined,
      paginatedTrackResponse: { ...body.paginatedTrackResponse, content: [...body.paginatedTrackResponse!.content].reverse() },
    };
    const shaped = await api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, users.owner.token, sample);
    expect(shaped.status).toBe(200);
    expect(ids(PlaylistSchema.parse(await shaped.json()))).toEqual([...order].reverse());

    const foreign = await finishedTrack(users.other.userId);
    for (const bad of [order.slice(1), [...order, order[0]], [...order.slice(1), foreign], [order[0], ...order.slice(0, 4)]]) {
      const r = await api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, users.owner.token, { trackIds: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(ErrorResponseSchema.parse(await r.json()).code).toBe('INVALID_PLAYLIST_ORDER');
    }
    const stranger = await api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, users.other.token, { trackIds: order });
    expect(stranger.status).toBe(404);
    expect(ErrorResponseSchema.parse(await stranger.json()).code).toBe('PLAYLIST_NOT_FOUND');
    expect((await api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, null, { trackIds: order })).status).toBe(401);
    expect((await api('PATCH', `/api/playlists/999999/tracks/reorder`, users.owner.token, { trackIds: order })).status).toBe(404);
  });

  it('concurrent reorder and add from two clients: every track exactly once', async () => {
    const base = await Promise.all([1, 2, 3, 4, 5].map(() => finishedTrack(users.owner.userId)));
    const p = await create(users.owner, { title: 'Race' });
    for (const t of base) await api('POST', `/api/playlists/${p.id}/tracks`, users.owner.token, { trackId: t });
    const extra = await Promise.all([1, 2, 3].map(() => finishedTrack(users.owner.userId)));
    const secondClient = await sign(users.owner.userId, users.owner.username);
    const results = await Promise.all([
      api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, users.owner.token, { trackIds: [...base].reverse() }),
      ...extra.map((t) => api('POST', `/api/playlists/${p.id}/tracks`, secondClient, { trackId: t })),
      api('PATCH', `/api/playlists/${p.id}/tracks/reorder`, users.owner.token, { trackIds: [...base].reverse() }),
    ]);
    for (const r of results) expect([200, 400]).toContain(r.status);
    const final = PlaylistSchema.parse(await (await api('GET', `/api/playlists/${p.id}`, users.owner.token)).json());
    expect([...ids(final)].sort()).toEqual([...base, ...extra].sort());
    expect(final.trackCount).toBe(8);
  });
});

describe('R6 privacy matrix: PLS-4, PLS-14, PLS-2, PLS-17, USR-19', () => {
  it('answers per privacy (public, private, private with token) and caller (owner, other, anonymous, admin)', async () => {
    const open = await finishedTrack(users.owner.userId, { durationSeconds: 10 });
    const hidden = await finishedTrack(users.owner.userId, { isPrivate: true, durationSeconds: 20 });
    const pub = await create(users.owner, { title: 'Matrix public' });
    const priv = await create(users.owner, { title: 'Matrix private', isPrivate: true });
    for (const p of [pub, priv]) for (const t of [open, hidden]) await api('POST', `/api/playlists/${p.id}/tracks`, users.owner.token, { trackId: t });
    const { owner, other } = users;
    const callers: Array<[string, string | null]> = [
      ['owner', owner.token],
      ['other', other.token],
      ['anonymous', null],
      ['admin', adminToken],
    ];
    // [path, expected per caller: status and trackCount (R6: included tracks visible to the caller; R5 through the token)]
    const table: Array<[string, Record<string, [number, number?]>]> = [
      [`/api/playlists/${pub.id}`, { owner: [200, 2], other: [200, 1], anonymous: [200, 1], admin: [200, 2] }],
      [`/api/playlists/${priv.id}`, { owner: [200, 2], other: [404], anonymous: [404], admin: [200, 2] }],
      [`/api/playlists/token/${priv.secretToken}`, { owner: [200, 2], other: [200, 2], anonymous: [200, 2], admin: [200, 2] }],
      [`/api/playlists/token/${pub.secretToken}`, { owner: [200, 2], other: [200, 2], anonymous: [200, 2], admin: [200, 2] }],
      [`/api/users/me/playlists/${pub.id}`, { owner: [200, 2], other: [404], anonymous: [401], admin: [404] }],
      [`/api/users/me/playlists/${priv.id}`, { owner: [200, 2], other: [404], anonymous: [401], admin: [404] }],
      [`/api/users/${owner.username}/playlists/${pub.id}`, { owner: [200, 2], other: [200, 1], anonymous: [200, 1], admin: [200, 2] }],
      [`/api/users/${owner.username}/playlists/${priv.id}`, { owner: [200, 2], other: [404], anonymous: [404], admin: [200, 2] }],
      [`/api/users/${other.username}/playlists/${pub.id}`, { owner: [404], other: [404], anonymous: [404], admin: [404] }],
    ];
    for (const [path, expected] of table) {
      for (const [who, token] of callers) {
        const res = await api('GET', path, token);
        const [status, count] = expected[who]!;
        expect(res.status, `${path} as ${who}`).toBe(status);
        const json = await res.json();
        if (status !== 200) {
          expect(ErrorResponseSchema.safeParse(json).success).toBe(true);
          continue;
        }
        const body = PlaylistSchema.parse(json);
        expect(body.trackCount, `${path} as ${who}`).toBe(count);
        expect(body.totalDurationSeconds).toBe(count === 2 ? 30 : 10);
        expect(body.secretToken === null, `${path} secretToken as ${who}`).toBe(who === 'other' || who === 'anonymous');
      }
    }
    // USR-19: private playlists only for the owner (and admins); the token never lists anything (R5).
    for (const [who, token] of callers) {
      const res = await api('GET', `/api/users/${owner.username}/playlists?size=100`, token);
      expect(res.status).toBe(200);
      const listed = pageSchema(PlaylistSchema)
        .parse(await res.json())
        .content.map((p) => p.id);
      expect(listed, who).toContain(pub.id);
      expect(listed.includes(priv.id), who).toBe(who === 'owner' || who === 'admin');
    }
    expect((await api('GET', '/api/users/no-such-user-here/playlists', null)).status).toBe(404);

    // PLS-13: regeneration kills the old token at once.
    const fresh = await api('POST', `/api/playlists/${priv.id}/secret-link/regenerate`, owner.token);
    expect(fresh.status).toBe(200);
    const link = (await fresh.json()) as { secretToken: string; secretUrl: string; expiresAt: null };
    expect(link.secretUrl.endsWith(`/${owner.username}/sets/${priv.playlistSlug}?token=${link.secretToken}`)).toBe(true);
    expect(link.expiresAt).toBeNull();
    expect((await api('GET', `/api/playlists/token/${priv.secretToken}`, null)).status).toBe(404);
    expect((await api('GET', `/api/playlists/token/${link.secretToken}`, null)).status).toBe(200);
  });
});

describe('PLS-* playlist routes refuse bad input with 4xx, never 500', () => {
  it('answers ErrorResponses for wrong types, unknown ids, huge strings and bad covers', async () => {
    const p = await create(users.owner, { title: 'Inputs' });
    const t = users.owner.token;
    const cases: Array<[string, string, string | null, unknown]> = [
      ['POST', '/api/playlists', t, {}],
      ['POST', '/api/playlists', t, { title: 42 }],
      ['POST', '/api/playlists', t, { title: 'x'.repeat(200_000) }],
      ['POST', '/api/playlists', t, { title: 'ok', type: 'BOOTLEG' }],
      ['POST', '/api/playlists', t, { title: 'ok', CoverArt: 'data:image/png;base64,AAAA' }],
      ['POST', '/api/playlists', t, { title: 'ok', CoverArt: 'https://evil.example/cover.png' }],
      ['POST', '/api/playlists', t, '{"title": '],
      ['PATCH', `/api/playlists/${p.id}`, t, { isPrivate: 'perhaps' }],
      ['PATCH', `/api/playlists/${p.id}`, t, { description: 'x'.repeat(1001) }],
      ['PATCH', '/api/playlists/abc', t, { title: 'x' }],
      ['PATCH', '/api/playlists/999999', t, { title: 'x' }],
      ['DELETE', '/api/playlists/abc', t, undefined],
      ['DELETE', '/api/playlists/999999', t, undefined],
      ['DELETE', '/api/playlists/999999/cover', t, undefined],
      ['POST', `/api/playlists/${p.id}/tracks`, t, { trackId: 'one' }],
      ['POST', `/api/playlists/${p.id}/tracks`, t, {}],
      ['POST', `/api/playlists/${p.id}/tracks`, t, { trackId: 999_999 }],
      ['POST', `/api/playlists/${p.id}/tracks?trackId=-1`, t, undefined],
      ['DELETE', `/api/playlists/${p.id}/tracks/1.5`, t, undefined],
      ['DELETE', `/api/playlists/${p.id}/tracks/999999`, t, undefined],
      ['PATCH', `/api/playlists/${p.id}/tracks/reorder`, t, { trackIds: ['a'] }],
      ['PATCH', `/api/playlists/${p.id}/tracks/reorder`, t, { trackIds: Array.from({ length: 2000 }, (_, i) => i + 1) }],
      ['PATCH', `/api/playlists/${p.id}/tracks/reorder`, t, {}],
      ['GET', `/api/playlists/${p.id}?size=1000`, t, undefined],
      ['GET', '/api/playlists/0', null, undefined],
      ['GET', '/api/playlists/1;DROP TABLE playlists', null, undefined],
      ['GET', `/api/playlists/${p.id}/tracks?page=x`, null, undefined],
      ['GET', '/api/playlists/abc/secret-link', t, undefined],
      ['POST', '/api/playlists/999999/secret-link/regenerate', t, undefined],
      ['GET', `/api/playlists/token/${'x'.repeat(500)}`, null, undefined],
      ['GET', '/api/playlists/999999/embed', null, undefined],
      ['GET', '/api/playlists/resolve', null, undefined],
      ['GET', '/api/playlists/resolve?playlistSlug=%3Cscript%3E', null, undefined],
      ['GET', `/api/users/${users.owner.username}/playlists/abc`, null, undefined],
      ['GET', `/api/users/${users.owner.username}/playlists?size=-1`, null, undefined],
    ];
    for (const [method, path, token, body] of cases) {
      const res = await api(method, path, token, body);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(ErrorResponseSchema.safeParse(await res.json()).success, `${method} ${path}`).toBe(true);
    }
    const count = await catalog().infra.prisma.playlist.count({ where: { ownerId: users.owner.userId, title: 'ok' } });
    expect(count).toBe(0);
  });
});

describe("PLS-4 caller-relative flags (catalog's copies of social's likes) and blocks", () => {
  it("shows isLiked from catalog's copy of the like, follows social's like counts, and hides across a block", async () => {
    const fan = await register('pl-fan@example.com', 'Playlist Fan');
    const track = await finishedTrack(users.owner.userId);
    const p = await create(users.owner, { title: 'Likeable' });
    await api('POST', `/api/playlists/${p.id}/tracks`, users.owner.token, { trackId: track });
    // Social learns about the playlist from catalog.playlist.changed.v1 (outbox → NATS).
    await waitFor(async () => (await api('POST', `/api/playlists/${p.id}/like`, fan.token)).ok || undefined, {
      timeoutMs: 10_000,
      message: 'social never saw the playlist',
    });
    // isLiked comes from catalog's copy of social's likes (social.item.liked.v1), within moments.
    const seen = await waitFor(
      async () => {
        const body = PlaylistSchema.parse(await (await api('GET', `/api/playlists/${p.id}`, fan.token)).json());
        return body.isLiked ? body : undefined;
      },
      { timeoutMs: 5000, message: "isLiked never followed social's like" },
    );
    expect(seen.trackSummaryDto.map((t) => t.id)).toEqual([track]);
    const forOwner = PlaylistSchema.parse(await (await api('GET', `/api/playlists/${p.id}`, users.owner.token)).json());
    expect(forOwner.isLiked).toBe(false);
    await waitFor(
      async () => {
        const body = PlaylistSchema.parse(await (await api('GET', `/api/playlists/${p.id}`, null)).json());
        return body.likeCount === 1 || undefined;
      },
      { timeoutMs: 5000, message: 'likeCount never followed social' },
    );

    expect((await api('POST', `/api/users/${users.owner.userId}/block`, fan.token)).status).toBeLessThan(300);
    await waitFor(async () => (await api('GET', `/api/playlists/${p.id}`, fan.token)).status === 404 || undefined, {
      timeoutMs: 5000,
      message: 'block not applied',
    });
    expect((await api('GET', `/api/users/${users.owner.username}/playlists`, fan.token)).status).toBe(404);
  });
});

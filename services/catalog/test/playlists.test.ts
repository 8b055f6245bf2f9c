import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jetstream } from '@nats-io/jetstream';
import { ErrorResponseSchema, pageSchema, PlaylistSchema, type Playlist } from '@msp/contracts';
import { createEnvelope, ItemLiked, ItemReposted, ItemUnliked, UserFollowed, UserRegistered } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
/** A stand-in for social that counts the calls catalog makes: there must be none (the viewer's flags come from catalog's copies). */
let social: Server;
const socialCalls: string[] = [];

const OWNER = 501;
const OTHER = 502;
const ADMIN = 503;

const as = (userId: number | null, role = 'LISTENER') => (userId ? { 'x-user-id': String(userId), 'x-user-role': role, 'x-username': `u${userId}` } : {});

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, user: number | null, body?: unknown, role = 'LISTENER') {
  const res = await app.inject({
    method,
    url,
    headers: { ...as(user, role), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return res;
}

async function insertTrack(
  artistId: number,
  fields: Partial<{ isPrivate: boolean; state: 'FINISHED' | 'PROCESSING'; durationSeconds: number; genre: string }> = {},
) {
  const slug = `t-${randomUUID().slice(0, 8)}`;
  return app.infra.prisma.track.create({
    data: {
      artistId,
      title: `Track ${slug}`,
      trackSlug: slug,
      genre: fields.genre ?? 'Techno',
      releaseDate: new Date('2026-01-15T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: fields.state ?? 'FINISHED',
      isPrivate: fields.isPrivate ?? false,
      durationSeconds: fields.durationSeconds ?? 100,
    },
    select: { id: true },
  });
}

async function createPlaylist(user: number, body: Record<string, unknown>): Promise<Playlist> {
  const res = await call('POST', '/api/playlists', user, body);
  expect(res.statusCode, res.body).toBe(201);
  return PlaylistSchema.parse(res.json());
}

async function add(user: number, playlistId: number, trackId: number) {
  return call('POST', `/api/playlists/${playlistId}/tracks`, user, { trackId });
}

beforeAll(async () => {
  env = await startServiceTestEnv('catalog', migrations);
  social = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      socialCalls.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url === '/internal/relationships' ? { items: [] } : { tracks: [], playlists: [], users: [] }));
    });
  });
  await new Promise<void>((resolve) => social.listen(0, '127.0.0.1', resolve));
  const socialPort = (social.address() as { port: number }).port;
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: `http://127.0.0.1:${socialPort}` }), { logger: false });
  await app.ready();
  for (const [userId, username] of [
    [OWNER, 'owner'],
    [OTHER, 'other'],
  ] as const) {
    const e = createEnvelope(UserRegistered, {
      userId,
      username,
      displayName: username,
      avatarUrl: null,
      tier: 'FREE',
      role: 'LISTENER',
      isPrivate: false,
      createdAt: new Date().toISOString(),
    });
    await jetstream(app.infra.nc).publish(e.type, JSON.stringify(e), { msgID: e.id });
  }
  await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: { in: [OWNER, OTHER] } } })) === 2, { message: 'projection' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  await new Promise((resolve) => social?.close(resolve));
});

describe('PLS-3 create playlist', () => {
  it('creates with defaults, a stable unique slug, a secret token and an outbox event', async () => {
    const a = await createPlaylist(OWNER, { title: 'Night Drive' });
    const b = await createPlaylist(OWNER, { title: 'Night  drive!' });
    expect(a).toMatchObject({
      type: 'PLAYLIST',
      isPrivate: false,
      playlistSlug: 'night-drive',
      trackCount: 0,
      totalDurationSeconds: 0,
      genres: [],
      coverArtUrl: null,
      paginatedTrackResponse: { content: [], totalElements: 0 },
    });
    expect(b.playlistSlug).toBe('night-drive-2');
    expect(a.secretToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const events = await app.infra.prisma.outboxEvent.findMany({ where: { type: 'catalog.playlist.changed.v1' } });
    expect(events.map((e) => (e.payload as { data: { playlistId: number } }).data.playlistId)).toEqual(expect.arrayContaining([a.id, b.id]));
    // Renaming keeps the slug (R1).
    const renamed = await call('PATCH', `/api/playlists/${a.id}`, OWNER, { title: 'Other title', type: 'ALBUM', genre: 'House', tags: ['A', 'a', 'b'] });
    expect(renamed.json()).toMatchObject({
      title: 'Other title',
      playlistSlug: 'night-drive',
      type: 'ALBUM',
      genre: 'House',
      genres: ['House'],
      tags: ['a', 'b'],
    });
  });

  it('accepts multipart with a coverArt file, resized to 500×500, and a data-URL CoverArt; refuses non-images', async () => {
    const png = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#f50' } })
      .png()
      .toBuffer();
    const boundary = 'x' + randomUUID();
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nWith cover\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="isPrivate"\r\n\r\ntrue\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="tags"\r\n\r\n["x"]\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="coverArt"; filename="c.txt"\r\nContent-Type: text/plain\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await app.inject({
      method: 'POST',
      url: '/api/playlists',
      headers: { ...as(OWNER), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = PlaylistSchema.parse(res.json());
    expect(created).toMatchObject({ isPrivate: true, tags: ['x'] });
    const key = /\/api\/media\/assets\/([0-9a-f-]{36})\/cover\.jpg$/.exec(created.coverArtUrl ?? '');
    expect(key).not.toBeNull();
    const stored = await app.infra.storage.get(`public/${key![1]}/cover.jpg`);
    const chunks: Buffer[] = [];
    for await (const c of stored) chunks.push(c as Buffer);
    expect(await sharp(Buffer.concat(chunks)).metadata()).toMatchObject({ width: 500, height: 500, format: 'jpeg' });

    // String form: a data URL, and the URL of an image this service serves (copied).
    const viaData = await createPlaylist(OWNER, { title: 'Data', CoverArt: `data:image/png;base64,${png.toString('base64')}` });
    expect(viaData.coverArtUrl).toMatch(/cover\.jpg$/);
    const copied = await createPlaylist(OWNER, { title: 'Copied', CoverArt: created.coverArtUrl });
    expect(copied.coverArtUrl).toMatch(/cover\.jpg$/);
    expect(copied.coverArtUrl).not.toBe(created.coverArtUrl);

    const bad = await call('POST', '/api/playlists', OWNER, {
      title: 'Bad',
      CoverArt: `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}`,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('UNSUPPORTED_IMAGE_FORMAT');
    const foreign = await call('POST', '/api/playlists', OWNER, { title: 'Bad', CoverArt: 'https://elsewhere.example/x.png' });
    expect(foreign.json().code).toBe('UNSUPPORTED_IMAGE_FORMAT');

    // PLS-5 CoverArt "" removes it; PLS-7 too.
    const removed = await call('PATCH', `/api/playlists/${viaData.id}`, OWNER, { CoverArt: '' });
    expect(removed.json().coverArtUrl).toBeNull();
    expect((await call('DELETE', `/api/playlists/${copied.id}/cover`, OWNER)).statusCode).toBe(204);
    expect((await call('GET', `/api/playlists/${copied.id}`, OWNER)).json().coverArtUrl).toBeNull();
  });

  it('refuses bad input with 4xx and stores nothing', async () => {
    const before = await app.infra.prisma.playlist.count();
    const cases: unknown[] = [
      {},
      { title: '' },
      { title: 'x'.repeat(101) },
      { title: 5 },
      { title: 'ok', type: 'MIXTAPE' },
      { title: 'ok', isPrivate: 'maybe' },
      { title: 'ok', description: 'x'.repeat(1001) },
      { title: 'ok', tags: 'not json' },
      { title: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
      { title: 'x'.repeat(1_000_000) },
    ];
    for (const body of cases) {
      const res = await call('POST', '/api/playlists', OWNER, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(ErrorResponseSchema.safeParse(res.json()).success).toBe(true);
    }
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/playlists',
      headers: { ...as(OWNER), 'content-type': 'application/json' },
      payload: '{"title":',
    });
    expect(malformed.statusCode).toBe(400);
    expect((await call('POST', '/api/playlists', null, { title: 'anon' })).statusCode).toBe(401);
    expect(await app.infra.prisma.playlist.count()).toBe(before);
    // Unicode and SQL-ish text are just text.
    const odd = await createPlaylist(OWNER, { title: "Ünïcødé 🎧 '); DROP TABLE playlists;--" });
    expect(odd.title).toBe("Ünïcødé 🎧 '); DROP TABLE playlists;--");
  });
});

describe('PLS-8 / PLS-9 / PLS-10 membership', () => {
  it('appends, refuses duplicates, removes, and reorders by permutation only', async () => {
    const p = await createPlaylist(OWNER, { title: 'Members' });
    const t = await Promise.all([1, 2, 3, 4, 5].map(() => insertTrack(OTHER)));
    for (const { id } of t) expect((await add(OWNER, p.id, id)).statusCode).toBe(200);
    const viaQuery = await insertTrack(OWNER, { isPrivate: true });
    const q = await app.inject({ method: 'POST', url: `/api/playlists/${p.id}/tracks?trackId=${viaQuery.id}`, headers: as(OWNER) });
    expect(q.statusCode, q.body).toBe(200);
    expect(q.json().trackSummaryDto.map((s: { id: number }) => s.id)).toEqual([...t.map((x) => x.id), viaQuery.id]);
    expect((await add(OWNER, p.id, t[0]!.id)).json().code).toBe('TRACK_ALREADY_IN_PLAYLIST');
    const privateOfOther = await insertTrack(OTHER, { isPrivate: true });
    expect((await add(OWNER, p.id, privateOfOther.id)).json().code).toBe('TRACK_NOT_FOUND');
    expect((await add(OWNER, p.id, 999_999)).statusCode).toBe(404);
    expect((await call('POST', `/api/playlists/${p.id}/tracks`, OWNER, {})).statusCode).toBe(400);
    expect((await call('POST', `/api/playlists/${p.id}/tracks`, OWNER, { trackId: 'abc' })).statusCode).toBe(400);

    const ids = [...t.map((x) => x.id), viaQuery.id];
    const reversed = [...ids].reverse();
    const res = await call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OWNER, { trackIds: reversed });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().trackSummaryDto.map((s: { id: number }) => s.id)).toEqual(reversed);
    // Playlist-shaped body (PLS-10).
    const shaped = await call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OWNER, {
      ...(res.json() as Record<string, unknown>),
      paginatedTrackResponse: { content: ids.map((id) => ({ id })) },
    });
    expect(shaped.json().tracks.map((s: { id: number }) => s.id)).toEqual(ids);
    for (const bad of [ids.slice(1), [...ids, ids[0]], [...ids.slice(1), 424242], [ids[0], ...ids.slice(0, -1)]]) {
      const r = await call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OWNER, { trackIds: bad });
      expect(r.statusCode).toBe(400);
      expect(r.json().code).toBe('INVALID_PLAYLIST_ORDER');
    }
    expect((await call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OWNER, { trackIds: 'x' })).json().code).toBe('VALIDATION_FAILED');
    expect((await call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OTHER, { trackIds: ids })).statusCode).toBe(404);
    expect((await call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, ADMIN, { trackIds: ids }, 'ADMIN')).statusCode).toBe(403);

    expect((await call('DELETE', `/api/playlists/${p.id}/tracks/${ids[2]}`, OWNER)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/playlists/${p.id}/tracks/${ids[2]}`, OWNER)).json().code).toBe('TRACK_NOT_IN_PLAYLIST');
    // Deleting a track removes it from every playlist (R6); the order of the rest stays.
    await app.infra.prisma.track.update({ where: { id: ids[0]! }, data: { deletedAt: new Date() } });
    const after = (await call('GET', `/api/playlists/${p.id}`, OWNER)).json() as Playlist;
    expect(after.trackSummaryDto.map((s) => s.id)).toEqual([ids[1], ids[3], ids[4], ids[5]]);
    expect(after.trackCount).toBe(4);
    expect(after.totalDurationSeconds).toBe(400);
  });

  it('concurrent adds and reorders keep every track exactly once', async () => {
    const p = await createPlaylist(OWNER, { title: 'Race' });
    const base = await Promise.all([1, 2, 3, 4].map(() => insertTrack(OWNER)));
    for (const { id } of base) await add(OWNER, p.id, id);
    const extra = await Promise.all([1, 2, 3, 4, 5, 6].map(() => insertTrack(OWNER)));
    const order = base.map((b) => b.id).reverse();
    const results = await Promise.all([
      ...extra.map((e) => add(OWNER, p.id, e.id)),
      call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OWNER, { trackIds: order }),
      call('PATCH', `/api/playlists/${p.id}/tracks/reorder`, OWNER, { trackIds: order }),
    ]);
    for (const r of results) expect([200, 400]).toContain(r.statusCode);
    const rows = await app.infra.prisma.playlistTrack.findMany({ where: { playlistId: p.id }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => r.trackId).sort()).toEqual([...base, ...extra].map((x) => x.id).sort());
    expect(new Set(rows.map((r) => r.position)).size).toBe(rows.length);
  });

  it('TRK-9 deleting a track removes it from every playlist (R6), keeping the others in order', async () => {
    const first = await createPlaylist(OWNER, { title: 'Keep order A' });
    const second = await createPlaylist(OWNER, { title: 'Keep order B' });
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => insertTrack(OWNER)));
    for (const p of [first, second]) for (const t of [a!, b!, c!]) expect((await add(OWNER, p.id, t.id)).statusCode).toBe(200);
    const deleted = await call('DELETE', `/api/tracks/${b!.id}`, OWNER);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await app.infra.prisma.playlistTrack.count({ where: { trackId: b!.id } })).toBe(0);
    for (const p of [first, second]) {
      const view = (await call('GET', `/api/playlists/${p.id}`, OWNER)).json() as Playlist;
      expect(view.trackSummaryDto.map((s) => s.id)).toEqual([a!.id, c!.id]);
      expect(view.trackCount).toBe(2);
    }
  });

  it('refuses the 501st track with PLAYLIST_FULL', async () => {
    const p = await createPlaylist(OWNER, { title: 'Full' });
    const t = await insertTrack(OWNER);
    await app.infra.prisma.playlistTrack.createMany({
      data: Array.from({ length: 500 }, (_, i) => ({ playlistId: p.id, trackId: 900_000 + i, position: i + 1 })),
    });
    // Rows of unknown track ids do not exist in practice; the count is what matters here.
    const res = await add(OWNER, p.id, t.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('PLAYLIST_FULL');
  });
});

describe('R6 visibility: PLS-4, PLS-14, PLS-2, PLS-17, USR-19', () => {
  it('answers per privacy × caller', async () => {
    const pub = await createPlaylist(OWNER, { title: 'Pub' });
    const priv = await createPlaylist(OWNER, { title: 'Priv', isPrivate: true });
    const ownPrivate = await insertTrack(OWNER, { isPrivate: true, durationSeconds: 30 });
    const otherPrivate = await insertTrack(OTHER, { isPrivate: true });
    const open = await insertTrack(OTHER, { durationSeconds: 60, genre: 'Ambient' });
    for (const p of [pub, priv]) {
      await add(OWNER, p.id, ownPrivate.id);
      await add(OWNER, p.id, open.id);
    }
    // A private track of someone else that the owner could once see: present in the table, never shown.
    await app.infra.prisma.playlistTrack.create({ data: { playlistId: priv.id, trackId: otherPrivate.id, position: 99 } });
    const token = priv.secretToken!;

    const matrix: Array<[string, number | null, string, number, number?]> = [
      [`/api/playlists/${pub.id}`, OWNER, 'LISTENER', 200, 2],
      [`/api/playlists/${pub.id}`, OTHER, 'LISTENER', 200, 1],
      [`/api/playlists/${pub.id}`, null, 'LISTENER', 200, 1],
      [`/api/playlists/${pub.id}`, ADMIN, 'ADMIN', 200, 2],
      [`/api/playlists/${priv.id}`, OWNER, 'LISTENER', 200, 2],
      [`/api/playlists/${priv.id}`, OTHER, 'LISTENER', 404],
      [`/api/playlists/${priv.id}`, null, 'LISTENER', 404],
      [`/api/playlists/${priv.id}`, ADMIN, 'ADMIN', 200, 3],
      // OTHER also sees their own private track (R2: the caller is its artist).
      [`/api/playlists/token/${token}`, OTHER, 'LISTENER', 200, 3],
      [`/api/playlists/token/${token}`, null, 'LISTENER', 200, 2],
      [`/api/playlists/token/nope`, null, 'LISTENER', 404],
      [`/api/users/me/playlists/${priv.id}`, OWNER, 'LISTENER', 200, 2],
      [`/api/users/me/playlists/${priv.id}`, OTHER, 'LISTENER', 404],
      [`/api/users/me/playlists/${pub.id}`, OTHER, 'LISTENER', 404],
      [`/api/users/owner/playlists/${pub.id}`, null, 'LISTENER', 200, 1],
      [`/api/users/${OWNER}/playlists/${pub.id}`, null, 'LISTENER', 200, 1],
      [`/api/users/other/playlists/${pub.id}`, null, 'LISTENER', 404],
      [`/api/users/owner/playlists/${priv.id}`, OTHER, 'LISTENER', 404],
      [`/api/users/owner/playlists/${priv.id}`, OWNER, 'LISTENER', 200, 2],
    ];
    for (const [url, user, role, status, count] of matrix) {
      const res = await call('GET', url, user, undefined, role);
      expect(res.statusCode, `${url} as ${user}`).toBe(status);
      if (status === 200) {
        const body = PlaylistSchema.parse(res.json());
        expect(body.trackCount, `${url} as ${user}`).toBe(count);
        expect(body.trackSummaryDto).toHaveLength(count!);
        expect(body.secretToken === null, `${url} as ${user}`).toBe(!(user === OWNER || role === 'ADMIN'));
      }
    }
    const viaToken = PlaylistSchema.parse((await call('GET', `/api/playlists/token/${token}`, null)).json());
    expect(viaToken.totalDurationSeconds).toBe(90);
    expect(viaToken.genres).toEqual(['Techno', 'Ambient']);
    expect(viaToken.trackSummaryDto.map((t) => t.id)).toEqual([ownPrivate.id, open.id]);
    expect(viaToken.trackSummaryDto[0]!.secretToken).toBeNull();

    // PLS-13: the old token dies at once.
    const fresh = await call('POST', `/api/playlists/${priv.id}/secret-link/regenerate`, OWNER);
    expect(fresh.json()).toMatchObject({ expiresAt: null });
    expect(fresh.json().secretUrl).toContain(`/owner/sets/${priv.playlistSlug}?token=`);
    expect((await call('GET', `/api/playlists/token/${token}`, null)).statusCode).toBe(404);
    expect((await call('GET', `/api/playlists/token/${fresh.json().secretToken}`, null)).statusCode).toBe(200);
    expect((await call('GET', `/api/playlists/${priv.id}/secret-link`, OWNER)).json().secretToken).toBe(fresh.json().secretToken);
    expect((await call('GET', `/api/playlists/${priv.id}/secret-link`, OTHER)).statusCode).toBe(404);

    // USR-19: private ones only for the owner; PLS-16 never resolves a private playlist for others.
    const list = (user: number | null) => call('GET', '/api/users/owner/playlists?size=100', user).then((r) => r.json() as { content: Playlist[] });
    expect((await list(OTHER)).content.some((p) => p.id === priv.id)).toBe(false);
    expect((await list(null)).content.some((p) => p.id === pub.id)).toBe(true);
    expect((await list(OWNER)).content.some((p) => p.id === priv.id)).toBe(true);
    expect((await call('GET', '/api/users/nobody-here/playlists', null)).statusCode).toBe(404);
    expect((await call('GET', `/api/playlists/resolve?playlistSlug=${pub.playlistSlug}`, null)).json()).toEqual({
      type: 'PLAYLIST',
      id: pub.id,
      resourceType: 'PLAYLIST',
      resourceId: pub.id,
    });
    expect((await call('GET', `/api/playlists/resolve?playlistSlug=${priv.playlistSlug}`, OTHER)).statusCode).toBe(404);
    expect((await call('GET', '/api/playlists/resolve', null)).statusCode).toBe(400);

    // PLS-11 and PLS-15.
    const tracks = await call('GET', `/api/playlists/${pub.id}/tracks?size=1`, OWNER);
    expect(tracks.json()).toMatchObject({ totalElements: 2, pageSize: 1, isLast: false });
    const embed = (await call('GET', `/api/playlists/${priv.id}/embed`, OWNER)).json();
    expect(embed.embedUrl).toContain('token=');
    expect((await call('GET', `/api/playlists/${priv.id}/embed`, OTHER)).statusCode).toBe(404);
  });

  it('PLS-6 deletes (owner only) and publishes the deletion', async () => {
    const p = await createPlaylist(OWNER, { title: 'Doomed' });
    expect((await call('DELETE', `/api/playlists/${p.id}`, OTHER)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/playlists/${p.id}`, OWNER)).statusCode).toBe(204);
    expect((await call('GET', `/api/playlists/${p.id}`, OWNER)).statusCode).toBe(404);
    expect(await app.infra.prisma.outboxEvent.count({ where: { type: 'catalog.playlist.deleted.v1' } })).toBeGreaterThan(0);
  });

  it('answers 400 for non-integer ids and bad paging', async () => {
    for (const url of [
      '/api/playlists/abc',
      '/api/playlists/1.5',
      '/api/playlists/0',
      '/api/playlists/1?size=0',
      '/api/playlists/1?page=-1',
      '/api/users/owner/playlists?size=101',
    ]) {
      expect((await call('GET', url, OWNER)).statusCode, url).toBe(400);
    }
    expect((await call('DELETE', '/api/playlists/abc/tracks/1', OWNER)).statusCode).toBe(400);
  });
});

describe('PLS-1 playlists of the current user', () => {
  it('pages newest first with secret tokens, in a bounded number of queries whatever the size', async () => {
    const user = 601;
    const tracks = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => insertTrack(OTHER)));
    for (let i = 0; i < 50; i++) {
      const p = await app.infra.prisma.playlist.create({
        data: {
          ownerId: user,
          title: `P${i}`,
          playlistSlug: `qc-${i}-${randomUUID().slice(0, 6)}`,
          secretToken: randomBytes(24).toString('base64url'),
          isPrivate: i % 2 === 0,
          createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, i)),
        },
      });
      await app.infra.prisma.playlistTrack.createMany({ data: tracks.map((t, j) => ({ playlistId: p.id, trackId: t.id, position: j + 1 })) });
    }
    const pool = app.infra.pool;
    let queries = 0;
    const origQuery = pool.query.bind(pool);
    const counted = (text: unknown) => {
      const sql = typeof text === 'string' ? text : ((text as { text?: string })?.text ?? '');
      if (!/outbox_event|processed_event/.test(sql)) queries++;
    };
    (pool as unknown as { query: (...a: unknown[]) => unknown }).query = (...args: unknown[]) => {
      counted(args[0]);
      return (origQuery as (...a: unknown[]) => unknown)(...args);
    };
    try {
      const measure = async (size: number) => {
        queries = 0;
        const res = await call('GET', `/api/users/me/playlists?size=${size}`, user);
        expect(res.statusCode).toBe(200);
        return { n: queries, body: pageSchema(PlaylistSchema).parse(res.json()) };
      };
      const small = await measure(5);
      const large = await measure(50);
      expect(large.body.content).toHaveLength(50);
      expect(large.body.totalElements).toBe(50);
      expect(large.n).toBeGreaterThanOrEqual(5);
      expect(large.n).toBeLessThanOrEqual(8);
      // The same statements whatever the size; the tracks' full rows may come from the row cache
      // (TrackRowCache) the first page filled, which saves one statement.
      expect(large.n).toBeLessThanOrEqual(small.n);
      expect(large.n).toBeGreaterThanOrEqual(small.n - 1);
      const first = large.body.content[0]!;
      expect(first.title).toBe('P49');
      expect(first.secretToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(first.trackSummaryDto).toHaveLength(5);
      expect(first.trackCount).toBe(7);
      expect(first.totalDurationSeconds).toBe(700);
      expect(first.paginatedTrackResponse).toBeNull();
      expect(first.trackSummaryDto.map((t) => t.id)).toEqual(tracks.slice(0, 5).map((t) => t.id));
    } finally {
      (pool as unknown as { query: unknown }).query = origQuery;
    }
    const strangers = pageSchema(PlaylistSchema).parse((await call('GET', '/api/users/me/playlists', OTHER)).json());
    expect(strangers.content.some((p) => p.owner.id === user)).toBe(false);
    expect((await call('GET', '/api/users/me/playlists', null)).statusCode).toBe(401);
  });
});

describe("PLS-1 / PLS-4 / USR-19 / DSC-3 the viewer's flags from catalog's copies, social never called", () => {
  const publish = async (envelope: { id: string; type: string }) =>
    jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });

  it('isLiked / isReposted of playlists and their tracks and isFollowing of their people follow the events, on lists, single playlists and search', async () => {
    const owner = 590;
    await publish(
      createEnvelope(UserRegistered, {
        userId: owner,
        username: 'batch-owner',
        displayName: 'Batch Owner',
        avatarUrl: null,
        tier: 'FREE',
        role: 'ARTIST',
        isPrivate: false,
        createdAt: new Date().toISOString(),
      }),
    );
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: owner } })) === 1, { message: 'owner' });
    const tracks = await Promise.all(Array.from({ length: 6 }, () => insertTrack(owner)));
    const made: Playlist[] = [];
    for (let i = 0; i < 20; i += 1) {
      const p = await createPlaylist(owner, { title: `Batch ${i}` });
      for (const t of tracks) expect((await add(owner, p.id, t.id)).statusCode).toBe(200);
      made.push(p);
    }
    const [liked, reposted] = [made[3]!, made[7]!];
    const at = new Date().toISOString();
    await publish(createEnvelope(ItemLiked, { userId: OTHER, targetType: 'PLAYLIST', targetId: liked.id, ownerId: owner, likeCount: 1, at }));
    await publish(createEnvelope(ItemReposted, { userId: OTHER, targetType: 'PLAYLIST', targetId: reposted.id, ownerId: owner, repostCount: 1, at }));
    await publish(createEnvelope(ItemLiked, { userId: OTHER, targetType: 'TRACK', targetId: tracks[0]!.id, ownerId: owner, likeCount: 1, at }));
    await publish(createEnvelope(UserFollowed, { followerId: OTHER, followeeId: owner, followerFollowingCount: 1, followeeFollowerCount: 1, at }));
    await waitFor(
      async () =>
        (await app.infra.prisma.playlistEngagement.count({ where: { userId: OTHER } })) === 2 &&
        (await app.infra.prisma.trackEngagement.count({ where: { userId: OTHER, trackId: tracks[0]!.id } })) === 1 &&
        (await app.infra.prisma.userFollow.count({ where: { followerId: OTHER, followeeId: owner } })) === 1,
      { message: 'copies' },
    );
    socialCalls.length = 0;
    const flagsOf = (p: Playlist) => [
      p.id,
      p.isLiked,
      p.isReposted,
      p.owner.isFollowing,
      p.trackSummaryDto[0]!.isLiked,
      p.trackSummaryDto[0]!.artist.isFollowing,
    ];
    const expected = (p: Playlist) => [p.id, p.id === liked.id, p.id === reposted.id, true, true, true];

    const list = pageSchema(PlaylistSchema).parse((await call('GET', `/api/users/${owner}/playlists?size=20`, OTHER)).json());
    expect(list.content).toHaveLength(20);
    expect(list.content.map(flagsOf)).toEqual(list.content.map(expected));
    const one = PlaylistSchema.parse((await call('GET', `/api/playlists/${liked.id}`, OTHER)).json());
    expect(flagsOf(one)).toEqual(expected(one));
    const found = (await call('GET', '/api/search?q=batch&type=PLAYLIST&size=50', OTHER)).json() as { content: Array<{ playlist: Playlist }> };
    expect(found.content.map((r) => flagsOf(r.playlist))).toEqual(found.content.map((r) => expected(r.playlist)));
    // The owner sees none of OTHER's flags, and no isFollowing of themselves.
    const mine = pageSchema(PlaylistSchema).parse((await call('GET', '/api/users/me/playlists?size=20', owner)).json());
    expect(mine.content.every((p) => !p.isLiked && !p.isReposted && !p.owner.isFollowing)).toBe(true);
    expect(socialCalls).toEqual([]);

    // An unlike and a deleted playlist take the copies with them.
    await publish(createEnvelope(ItemUnliked, { userId: OTHER, targetType: 'PLAYLIST', targetId: liked.id, ownerId: owner, likeCount: 0, at }));
    await waitFor(async () => (await app.infra.prisma.playlistEngagement.count({ where: { userId: OTHER } })) === 1, { message: 'unlike' });
    expect(PlaylistSchema.parse((await call('GET', `/api/playlists/${liked.id}`, OTHER)).json()).isLiked).toBe(false);
    expect((await call('DELETE', `/api/playlists/${reposted.id}`, owner)).statusCode).toBeLessThan(300);
    expect(await app.infra.prisma.playlistEngagement.count({ where: { playlistId: reposted.id } })).toBe(0);
  });
});

describe('PLS-15 embed code, player page and oEmbed for playlists', () => {
  it('serves the player with the track list; private playlists only with their token', async () => {
    const t = await insertTrack(OWNER);
    const pub = await createPlaylist(OWNER, { title: 'Embed <me>' });
    const priv = await createPlaylist(OWNER, { title: 'Embed private', isPrivate: true });
    for (const p of [pub, priv]) await add(OWNER, p.id, t.id);
    const code = (await call('GET', `/api/playlists/${pub.id}/embed`, null)).json() as { embedCode: string; embedUrl: string };
    expect(code.embedCode).toMatch(/^<iframe [^>]*src="[^"]*\/embed\/player\?url=/);
    const permalink = new URL(code.embedUrl).searchParams.get('url')!;
    expect(permalink.endsWith(`/owner/sets/${pub.playlistSlug}`)).toBe(true);
    const page = await app.inject({ method: 'GET', url: `/api/embed/player?url=${encodeURIComponent(permalink)}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Embed &lt;me&gt;');
    expect(page.body).toContain('<ol id="tracks"><li>');
    const oembed = await app.inject({ method: 'GET', url: `/api/oembed?url=${encodeURIComponent(permalink)}` });
    expect(oembed.json()).toMatchObject({ version: '1.0', type: 'rich', title: 'Embed <me> by owner' });

    const privCode = (await call('GET', `/api/playlists/${priv.id}/embed`, OWNER)).json() as { embedUrl: string };
    const url = new URL(privCode.embedUrl);
    expect(url.searchParams.get('token')).toBe(priv.secretToken);
    const withToken = await app.inject({ method: 'GET', url: `/api/embed/player${url.search}` });
    expect(withToken.statusCode).toBe(200);
    const without = await app.inject({ method: 'GET', url: `/api/embed/player?url=${encodeURIComponent(url.searchParams.get('url')!)}` });
    expect(without.statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/api/oembed?url=${encodeURIComponent(url.searchParams.get('url')!)}` })).statusCode).toBe(404);
  });
});

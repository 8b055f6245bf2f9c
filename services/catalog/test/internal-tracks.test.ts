import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INTERNAL_ROUTES, InternalTracksResponseSchema, type Track } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

const NINA = 501;
const BLOCKER = 502;
const GONE = 503;
const VIEWER = 600;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let social: Server;
/** What the fake social was asked, to check the batching. */
const socialCalls: Array<{ path: string; body: { viewerId: number; userIds?: number[]; trackIds?: number[] } }> = [];

/**
 * Social's internal routes, to prove catalog does NOT call them from its internal render (reads go
 * one way: social renders through catalog and fills the flags itself). It would say BLOCKER has
 * blocked VIEWER; catalog knows the block from its own copy.
 */
function startFakeSocial(): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { viewerId: number; userIds?: number[]; trackIds?: number[] };
      socialCalls.push({ path: req.url ?? '', body });
      res.setHeader('content-type', 'application/json');
      const users = (body.userIds ?? []).map((userId) => ({
        userId,
        isFollowing: userId === NINA,
        isFollowed: false,
        isBlocked: false,
        hasBlockedViewer: userId === BLOCKER && body.viewerId === VIEWER,
      }));
      if (req.url === INTERNAL_ROUTES.relationships) {
        res.end(JSON.stringify({ items: users }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const ids = {} as Record<'public' | 'preview' | 'private' | 'processing' | 'deleted' | 'blocked' | 'gone', number>;

async function insertTrack(artistId: number, slug: string, fields: Record<string, unknown> = {}) {
  const row = await app.infra.prisma.track.create({
    data: {
      artistId,
      title: `Title ${slug}`,
      trackSlug: slug,
      description: `About ${slug}`,
      genre: 'Techno',
      tags: ['night', 'live'],
      releaseDate: new Date('2026-01-15T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      publishedAt: new Date(),
      durationSeconds: 200,
      playCount: 42,
      completedPlayCount: 7,
      progressiveKey: `tracks/${slug}/full.m4a`,
      hlsPlaylistKey: `tracks/${slug}/index.m3u8`,
      previewKey: `tracks/${slug}/preview.m4a`,
      waveformKey: `public/${randomUUID()}/waveform.json`,
      ...fields,
    },
    select: { id: true },
  });
  return row.id;
}

async function render(body: unknown) {
  return app.inject({ method: 'POST', url: INTERNAL_ROUTES.tracks, payload: body as object });
}

async function renderOk(body: unknown): Promise<Track[]> {
  const res = await render(body);
  expect(res.statusCode, res.body).toBe(200);
  return InternalTracksResponseSchema.parse(res.json()).tracks;
}

beforeAll(async () => {
  social = await startFakeSocial();
  env = await startServiceTestEnv('catalog', migrations);
  const port = (social.address() as AddressInfo).port;
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: `http://127.0.0.1:${port}` }), { logger: false });
  await app.ready();
  await app.infra.prisma.userSummary.createMany({
    data: [
      { userId: NINA, username: 'nina', displayName: 'Nina', role: 'ARTIST', trackCount: 2 },
      { userId: BLOCKER, username: 'blocker', displayName: 'Blocker', role: 'ARTIST' },
      { userId: GONE, username: 'gone', displayName: 'Gone', role: 'ARTIST', isDeleted: true },
      { userId: VIEWER, username: 'viewer', displayName: 'Viewer' },
    ],
  });
  ids.public = await insertTrack(NINA, 'nina-public');
  ids.preview = await insertTrack(NINA, 'nina-preview', { access: 'PREVIEW' });
  ids.private = await insertTrack(NINA, 'nina-private', { isPrivate: true });
  ids.processing = await insertTrack(NINA, 'nina-processing', { state: 'PROCESSING', publishedAt: null, progressiveKey: null });
  ids.deleted = await insertTrack(NINA, 'nina-deleted', { deletedAt: new Date() });
  ids.blocked = await insertTrack(BLOCKER, 'blocker-public');
  ids.gone = await insertTrack(GONE, 'gone-public');
  // R7 from catalog's copy of social's blocks (kept by the social-sync consumer).
  await app.infra.prisma.userBlock.create({ data: { blockerId: BLOCKER, blockedId: VIEWER } });
});

afterAll(async () => {
  await app?.close();
  await env?.close();
  await new Promise((resolve) => social?.close(resolve));
});

describe('INTERNAL tracks (Track (full) for another service, as TRK-6 renders it)', () => {
  it('renders the visible tracks in the requested order, with catalog fields and signed media URLs', async () => {
    socialCalls.length = 0;
    const all = Object.values(ids);
    const tracks = await renderOk({ viewerId: VIEWER, viewerRole: 'LISTENER', trackIds: [ids.preview, ...all, 999_999] });
    expect(tracks.map((t) => t.id)).toEqual([ids.preview, ids.public]);
    const [preview, pub] = tracks as [Track, Track];
    expect(pub).toMatchObject({
      description: 'About nina-public',
      tags: ['night', 'live'],
      releaseDate: '2026-01-15',
      playCount: 42,
      completedPlayCount: 7,
      trackDurationSeconds: 200,
      isLiked: false,
      isReposted: false,
      secretToken: null,
      artist: { id: NINA, username: 'nina', isFollowing: false },
    });
    expect(pub.trackUrl).toMatch(new RegExp(`/api/media/tracks/${ids.public}/full\\.m4a\\?`));
    expect(pub.hlsUrl).toMatch(/index\.m3u8\?/);
    expect(pub.trackPreviewUrl).toMatch(/preview\.m4a\?/);
    expect(pub.waveformUrl).toMatch(/\/api\/media\/assets\/[0-9a-f-]{36}\/waveform\.json$/);
    // R3: a PREVIEW track gives others the preview only.
    expect(preview.trackUrl).toBeNull();
    expect(preview.trackPreviewUrl).toMatch(/preview\.m4a\?/);
    // No call back to social: its caller-relative flags are social's to fill (no synchronous cycle).
    expect(socialCalls).toHaveLength(0);
  });

  it('is the same record TRK-6 answers for that viewer, but for the flags only social knows', async () => {
    const headers = { 'x-user-id': String(VIEWER), 'x-user-role': 'LISTENER', 'x-user-tier': 'FREE' };
    // TRK-6 reads the viewer's like from catalog's copy (track_engagements, kept by social-sync).
    await app.infra.prisma.trackEngagement.create({ data: { kind: 'L', userId: VIEWER, trackId: ids.public, createdAt: new Date() } });
    const direct = (await app.inject({ method: 'GET', url: `/api/tracks/${ids.public}`, headers })).json() as Track;
    const [rendered] = await renderOk({ viewerId: VIEWER, viewerRole: 'LISTENER', trackIds: [ids.public] });
    expect(direct.isLiked).toBe(true);
    const unsigned = (t: Track) => ({
      ...t,
      isLiked: false,
      isReposted: false,
      artist: { ...t.artist, isFollowing: false },
      trackUrl: t.trackUrl?.split('?')[0],
      hlsUrl: t.hlsUrl?.split('?')[0],
      trackPreviewUrl: t.trackPreviewUrl?.split('?')[0],
    });
    expect(unsigned(rendered!)).toEqual(unsigned(direct));
  });

  it('shows anonymous viewers public tracks only, without asking social', async () => {
    socialCalls.length = 0;
    const tracks = await renderOk({ viewerId: null, trackIds: Object.values(ids) });
    expect(tracks.map((t) => t.id)).toEqual([ids.public, ids.preview, ids.blocked]);
    expect(tracks.every((t) => !t.isLiked && t.secretToken === null)).toBe(true);
    expect(socialCalls).toHaveLength(0);
  });

  it('hides a blocked artist from the viewer even though social is never asked (R7 fails closed)', async () => {
    socialCalls.length = 0;
    const tracks = await renderOk({ viewerId: VIEWER, viewerRole: 'LISTENER', trackIds: [ids.blocked, ids.public] });
    expect(tracks.map((t) => t.id)).toEqual([ids.public]);
    // The block hides both ways: the blocker does not see the viewer's tracks either (none here), and others see BLOCKER's.
    const other = await renderOk({ viewerId: NINA, viewerRole: 'ARTIST', trackIds: [ids.blocked] });
    expect(other.map((t) => t.id)).toEqual([ids.blocked]);
    expect(socialCalls).toHaveLength(0);
  });

  it('shows the artist their own private and unfinished tracks (with the secret token), never deleted ones', async () => {
    const tracks = await renderOk({ viewerId: NINA, viewerRole: 'ARTIST', trackIds: Object.values(ids) });
    expect(tracks.map((t) => t.id)).toEqual([ids.public, ids.preview, ids.private, ids.processing, ids.blocked]);
    const priv = tracks.find((t) => t.id === ids.private)!;
    expect(priv.secretToken).toEqual(expect.any(String));
    expect(tracks.find((t) => t.id === ids.processing)!.trackUrl).toBeNull();
  });

  it('shows admins everything not deleted', async () => {
    const tracks = await renderOk({ viewerId: 700, viewerRole: 'ADMIN', trackIds: Object.values(ids) });
    expect(tracks.map((t) => t.id).sort((a, b) => a - b)).toEqual(
      [ids.public, ids.preview, ids.private, ids.processing, ids.blocked, ids.gone].sort((a, b) => a - b),
    );
  });

  it('answers an empty list for no ids', async () => {
    expect(await renderOk({ viewerId: VIEWER, trackIds: [] })).toEqual([]);
  });

  it('refuses bad input with 400 and the failing fields', async () => {
    for (const body of [
      { viewerId: VIEWER, trackIds: Array.from({ length: 101 }, (_, i) => i + 1) },
      { viewerId: VIEWER, trackIds: ['1'] },
      { viewerId: 'x', trackIds: [1] },
      { viewerId: VIEWER, viewerRole: 'ROOT', trackIds: [1] },
      { viewerId: VIEWER },
    ]) {
      const res = await render(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('is hidden from the OpenAPI document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.includes('internal'))).toEqual([]);
  });
});

describe('list reads take rows from the row cache only at their current version', () => {
  /** Full row reads of list pages (the row cache's misses), counted on catalog's pool. */
  function countFullReads() {
    const spy = vi.spyOn(app.infra.pool, 'query');
    return {
      get count() {
        return spy.mock.calls.filter(([config]) => (config as { name?: string }).name === 'catalog_tracks_by_ids').length;
      },
      restore: () => spy.mockRestore(),
    };
  }

  it('reads each row in full once, then shows every change at once: the track, its counters, its artist, a block', async () => {
    const trackIds = [ids.public, ids.preview];
    await renderOk({ viewerId: null, trackIds });
    const reads = countFullReads();
    try {
      const again = await renderOk({ viewerId: null, trackIds });
      expect(again.map((t) => t.id)).toEqual(trackIds);
      expect(reads.count).toBe(0);

      // Changes as TRK-8, a like and identity's profile event write them.
      await app.infra.prisma.track.update({ where: { id: ids.public }, data: { title: 'Renamed while cached' } });
      await app.infra.pool.query('UPDATE tracks SET like_count = like_count + 5 WHERE id = $1', [ids.preview]);
      const changed = await renderOk({ viewerId: null, trackIds });
      expect(changed.map((t) => t.title)[0]).toBe('Renamed while cached');
      expect(changed[1]!.likeCount).toBe(again[1]!.likeCount + 5);
      expect(reads.count).toBe(1);

      await app.infra.prisma.userSummary.update({ where: { userId: NINA }, data: { displayName: 'Nina Renamed' } });
      const renamed = await renderOk({ viewerId: null, trackIds });
      expect(renamed.map((t) => t.artist.displayName)).toEqual(['Nina Renamed', 'Nina Renamed']);

      // A row cached for an anonymous render is still hidden from a viewer a block separates from its artist.
      await renderOk({ viewerId: null, trackIds: [ids.blocked] });
      expect((await renderOk({ viewerId: VIEWER, viewerRole: 'LISTENER', trackIds: [ids.blocked, ids.public] })).map((t) => t.id)).toEqual([ids.public]);
      // Deleted after being cached: gone.
      await app.infra.prisma.track.update({ where: { id: ids.preview }, data: { deletedAt: new Date() } });
      expect((await renderOk({ viewerId: null, trackIds })).map((t) => t.id)).toEqual([ids.public]);
    } finally {
      reads.restore();
      await app.infra.prisma.track.update({ where: { id: ids.preview }, data: { deletedAt: null } });
    }
  });
});

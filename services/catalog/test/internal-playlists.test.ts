import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_ROUTES, InternalPlaylistsResponseSchema, PlaylistSchema } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const [OWNER, BLOCKER, GONE, VIEWER] = [801, 802, 803, 900];

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let social: Server;
const socialCalls: string[] = [];

/** Social's internal routes, to prove catalog never calls them from its internal render (it would say BLOCKER has blocked VIEWER). */
function startFakeSocial(): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { viewerId: number; userIds?: number[]; trackIds?: number[]; playlistIds?: number[] };
      socialCalls.push(req.url ?? '');
      const users = (body.userIds ?? []).map((userId) => ({
        userId,
        isFollowing: false,
        isFollowed: false,
        isBlocked: false,
        hasBlockedViewer: userId === BLOCKER && body.viewerId === VIEWER,
      }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ tracks: [], playlists: (body.playlistIds ?? []).map((id) => ({ id, isLiked: true, isReposted: false })), users, items: users }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const ids = {} as Record<'public' | 'private' | 'blocked' | 'gone', number>;

async function insertPlaylist(ownerId: number, slug: string, isPrivate = false) {
  return (
    await app.infra.prisma.playlist.create({
      data: { ownerId, title: `Mix ${slug}`, playlistSlug: slug, isPrivate, secretToken: randomBytes(24).toString('base64url') },
      select: { id: true },
    })
  ).id;
}

const render = (body: unknown) => app.inject({ method: 'POST', url: INTERNAL_ROUTES.playlists, payload: body as object });

beforeAll(async () => {
  social = await startFakeSocial();
  env = await startServiceTestEnv('catalog_int_pls', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: `http://127.0.0.1:${(social.address() as AddressInfo).port}` }), { logger: false });
  await app.ready();
  await app.infra.prisma.userSummary.createMany({
    data: [
      { userId: OWNER, username: 'owner', displayName: 'Owner' },
      { userId: BLOCKER, username: 'blocker', displayName: 'Blocker' },
      { userId: GONE, username: 'gone', displayName: 'Gone', isDeleted: true },
      { userId: VIEWER, username: 'viewer', displayName: 'Viewer' },
    ],
  });
  ids.public = await insertPlaylist(OWNER, 'owner-public');
  ids.private = await insertPlaylist(OWNER, 'owner-private', true);
  ids.blocked = await insertPlaylist(BLOCKER, 'blocker-public');
  ids.gone = await insertPlaylist(GONE, 'gone-public');
  // R7 from catalog's copy of social's blocks (kept by the social-sync consumer).
  await app.infra.prisma.userBlock.create({ data: { blockerId: BLOCKER, blockedId: VIEWER } });
});

afterAll(async () => {
  await app?.close();
  await env?.close();
  await new Promise((resolve) => social?.close(resolve));
});

describe('INTERNAL playlists (Playlist list form for another service)', () => {
  it('renders only what the viewer may see (R6, R7, deleted owner), in the requested order, without calling social', async () => {
    socialCalls.length = 0;
    const res = await render({ viewerId: VIEWER, playlistIds: [ids.gone, ids.private, ids.blocked, ids.public, 123_456] });
    expect(res.statusCode, res.body).toBe(200);
    const { playlists } = InternalPlaylistsResponseSchema.parse(res.json());
    expect(playlists.map((p) => p.id)).toEqual([ids.public]);
    expect(PlaylistSchema.strict().parse(playlists[0])).toMatchObject({
      title: 'Mix owner-public',
      isLiked: false,
      secretToken: null,
      paginatedTrackResponse: null,
    });
    // Reads between catalog and social go one way: the viewer's flags are the caller's to fill.
    expect(socialCalls).toEqual([]);
  });

  it('shows the owner their private playlist and admins everything', async () => {
    const own = InternalPlaylistsResponseSchema.parse((await render({ viewerId: OWNER, playlistIds: [ids.private, ids.public] })).json());
    expect(own.playlists.map((p) => p.id)).toEqual([ids.private, ids.public]);
    expect(own.playlists[0]!.secretToken).toEqual(expect.any(String));
    const admin = InternalPlaylistsResponseSchema.parse((await render({ viewerId: 1, viewerRole: 'ADMIN', playlistIds: Object.values(ids) })).json());
    expect(admin.playlists).toHaveLength(4);
  });

  it('refuses bad input with 400', async () => {
    for (const body of [
      { viewerId: VIEWER },
      { viewerId: VIEWER, playlistIds: ['1'] },
      { viewerId: VIEWER, playlistIds: Array.from({ length: 101 }, (_, i) => i + 1) },
    ]) {
      expect((await render(body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });
});

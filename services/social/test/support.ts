import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { InternalTracksRequest, Track } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadSocialConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export type SocialApp = Awaited<ReturnType<typeof buildApp>>;

/**
 * A stand-in for catalog's `POST /internal/tracks`: `down` answers 503, `slow` answers after the
 * client's timeout, `render` answers the records of `tracks` for the requested ids (ids missing
 * from `tracks` are left out, as catalog does for invisible ones). Every request is recorded.
 */
export interface FakeCatalog {
  url: string;
  mode: 'down' | 'slow' | 'render';
  tracks: Map<number, Track>;
  requests: InternalTracksRequest[];
  close(): Promise<void>;
}

export async function startFakeCatalog(): Promise<FakeCatalog> {
  const fake = { mode: 'down', tracks: new Map(), requests: [] } as unknown as FakeCatalog;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as InternalTracksRequest;
      fake.requests.push(body);
      const answer = () => {
        if (req.url !== '/internal/tracks' || fake.mode === 'down') {
          res.statusCode = 503;
          res.end('{}');
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ tracks: body.trackIds.flatMap((id) => fake.tracks.get(id) ?? []) }));
      };
      if (fake.mode === 'slow') setTimeout(answer, 1500).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return fake;
}

export interface Harness {
  app: SocialApp;
  env: ServiceTestEnv;
  /** catalog as social sees it; `down` unless a test says otherwise. */
  catalog: FakeCatalog;
  close(): Promise<void>;
}

export async function startSocial(label: string): Promise<Harness> {
  const env = await startServiceTestEnv(label, migrations);
  const catalog = await startFakeCatalog();
  const app = await buildApp(loadSocialConfig({ ...env.env, CATALOG_URL: catalog.url }), { logger: false });
  await app.ready();
  return {
    app,
    env,
    catalog,
    async close() {
      await app.close();
      await catalog.close();
      await env.close();
    },
  };
}

/** The identity headers the gateway forwards for a verified caller. */
export function as(userId: number, role: 'LISTENER' | 'ARTIST' | 'ADMIN' = 'LISTENER'): Record<string, string> {
  return { 'x-user-id': String(userId), 'x-user-role': role, 'x-user-tier': 'FREE' };
}

export async function seedUsers(app: SocialApp, users: Array<{ id: number; username: string; isPrivate?: boolean; role?: string; trackCount?: number }>) {
  await app.infra.prisma.userSummary.createMany({
    data: users.map((u) => ({
      userId: u.id,
      username: u.username,
      displayName: u.username.toUpperCase(),
      isPrivate: u.isPrivate ?? false,
      role: u.role ?? 'LISTENER',
      trackCount: u.trackCount ?? 0,
    })),
  });
}

export async function seedTrack(
  app: SocialApp,
  t: { id: number; artistId: number; isPrivate?: boolean; state?: string; durationSeconds?: number | null; title?: string },
) {
  await app.infra.prisma.trackRef.create({
    data: {
      trackId: t.id,
      artistId: t.artistId,
      title: t.title ?? `Track ${t.id}`,
      trackSlug: `track-${t.id}`,
      state: t.state ?? 'FINISHED',
      isPrivate: t.isPrivate ?? false,
      access: 'PLAYABLE',
      durationSeconds: t.durationSeconds === undefined ? 180 : t.durationSeconds,
      coverUrl: null,
      genre: 'Techno',
      publishedAt: new Date(),
      createdAt: new Date(Date.UTC(2026, 0, 1)),
    },
  });
}

export async function seedPlaylist(app: SocialApp, p: { id: number; ownerId: number; isPrivate?: boolean }) {
  await app.infra.prisma.playlistRef.create({
    data: {
      playlistId: p.id,
      ownerId: p.ownerId,
      title: `Playlist ${p.id}`,
      playlistSlug: `playlist-${p.id}`,
      isPrivate: p.isPrivate ?? false,
      coverArtUrl: null,
      createdAt: new Date(Date.UTC(2026, 0, 2)),
    },
  });
}

/** Outbox events of one type, oldest first, as the relay will publish them. */
export async function outbox(app: SocialApp, type: string): Promise<Array<Record<string, unknown>>> {
  const rows = await app.infra.prisma.outboxEvent.findMany({ where: { type }, orderBy: { seq: 'asc' } });
  return rows.map((r) => (r.payload as { data: Record<string, unknown> }).data);
}

import { fileURLToPath } from 'node:url';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadSocialConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export type SocialApp = Awaited<ReturnType<typeof buildApp>>;

export interface Harness {
  app: SocialApp;
  env: ServiceTestEnv;
  close(): Promise<void>;
}

export async function startSocial(label: string): Promise<Harness> {
  const env = await startServiceTestEnv(label, migrations);
  const app = await buildApp(loadSocialConfig(env.env), { logger: false });
  await app.ready();
  return {
    app,
    env,
    async close() {
      await app.close();
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

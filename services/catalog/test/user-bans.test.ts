import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { CountsRecounted, createEnvelope, UserBanned, UserRegistered, UserUnbanned } from '@msp/events';
import { INTERNAL_ROUTES } from '@msp/contracts';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

/**
 * R14 in catalog: identity's ban event hides the user's tracks and playlists from everyone but
 * admins (404 by id, absent from lists, playlists' track lists, history and the internal
 * renderings other services use); the unban event brings them back.
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const USERS = { banned: 1101, listener: 1102, other: 1103, admin: 1104 } as const;
const as = (userId: number, role = 'LISTENER') => ({ 'x-user-id': String(userId), 'x-user-role': role, 'x-username': `u${userId}` });
const ADMIN = as(USERS.admin, 'ADMIN');
const LISTENER = as(USERS.listener);

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function register(userId: number, username: string) {
  await publish(
    createEnvelope(UserRegistered, {
      userId,
      username,
      displayName: username,
      avatarUrl: null,
      tier: 'FREE',
      role: 'ARTIST',
      isPrivate: false,
      createdAt: new Date().toISOString(),
    }),
  );
}

async function track(artistId: number, title: string): Promise<{ id: number; secretToken: string }> {
  const genre = 'Electronic';
  return app.infra.prisma.track.create({
    data: {
      artistId,
      title,
      trackSlug: `b-${randomUUID().slice(0, 8)}`,
      genre,
      genreKey: genre.toLowerCase(),
      tags: [],
      releaseDate: new Date('2026-01-01T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      isPrivate: false,
      durationSeconds: 60,
      publishedAt: new Date(),
      progressiveKey: 'tracks/x/full.m4a',
      waveformKey: `public/${randomUUID()}/waveform.json`,
    },
    select: { id: true, secretToken: true },
  });
}

async function playlist(ownerId: number, title: string, trackIds: number[]): Promise<number> {
  const row = await app.infra.prisma.playlist.create({
    data: {
      ownerId,
      title,
      playlistSlug: `p-${randomUUID().slice(0, 8)}`,
      secretToken: randomBytes(24).toString('base64url'),
      entries: { create: trackIds.map((trackId, i) => ({ trackId, position: i + 1 })) },
    },
    select: { id: true },
  });
  return row.id;
}

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
const ids = (page: { content: Array<{ id: number }> }) => page.content.map((c) => c.id);

const t = {} as { banned: { id: number; secretToken: string }; other: { id: number; secretToken: string } };
const p = {} as { banned: number; mixed: number };

async function setBan(banned: boolean) {
  await publish(
    banned
      ? createEnvelope(UserBanned, { userId: USERS.banned, reason: 'spam', bannedAt: new Date().toISOString() })
      : createEnvelope(UserUnbanned, { userId: USERS.banned }),
  );
  await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: USERS.banned, isBanned: banned } })) === 1, {
    message: banned ? 'ban copied' : 'unban copied',
  });
}

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_bans', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: 'http://127.0.0.1:1' }), { logger: false });
  await app.ready();
  await register(USERS.banned, 'bad-bert');
  await register(USERS.listener, 'lena');
  await register(USERS.other, 'olga');
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 3, { message: 'projection' });
  t.banned = await track(USERS.banned, 'Bert Banned Anthem');
  t.other = await track(USERS.other, 'Olga Fine Tune');
  p.banned = await playlist(USERS.banned, 'Bert Set', [t.banned.id, t.other.id]);
  p.mixed = await playlist(USERS.listener, 'Lena Mix', [t.banned.id, t.other.id]);
  await app.infra.prisma.listeningHistory.createMany({
    data: [
      { userId: USERS.listener, trackId: t.banned.id, lastPlayedAt: new Date() },
      { userId: USERS.listener, trackId: t.other.id, lastPlayedAt: new Date(Date.now() - 1000) },
    ],
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** Everything a listener sees of the banned user's content, in one object. */
async function listenerView() {
  const [trackRes, anonTrack, tokenRes, waveform, playlistRes, userTracks, userPlaylists, mixed, mixedTracks, history, internalTracks, internalPlaylists] =
    await Promise.all([
      get(`/api/tracks/${t.banned.id}`, LISTENER),
      get(`/api/tracks/${t.banned.id}`),
      get(`/api/tracks/token/${t.banned.secretToken}`, LISTENER),
      get(`/api/tracks/${t.banned.id}/waveform-url`, LISTENER),
      get(`/api/playlists/${p.banned}`, LISTENER),
      get(`/api/users/${USERS.banned}/tracks`, LISTENER),
      get(`/api/users/bad-bert/playlists`, LISTENER),
      get(`/api/playlists/${p.mixed}`, LISTENER),
      get(`/api/playlists/${p.mixed}/tracks`, LISTENER),
      get('/api/users/me/history', LISTENER),
      app.inject({
        method: 'POST',
        url: INTERNAL_ROUTES.tracks,
        payload: { viewerId: USERS.listener, viewerRole: 'LISTENER', trackIds: [t.banned.id, t.other.id] },
      }),
      app.inject({
        method: 'POST',
        url: INTERNAL_ROUTES.playlists,
        payload: { viewerId: USERS.listener, viewerRole: 'LISTENER', playlistIds: [p.banned, p.mixed] },
      }),
    ]);
  const mixedBody = mixed.json() as { trackCount: number; paginatedTrackResponse: { content: Array<{ id: number }>; totalElements: number } };
  return {
    track: trackRes.statusCode,
    anonymous: anonTrack.statusCode,
    token: tokenRes.statusCode,
    waveform: waveform.statusCode,
    playlist: playlistRes.statusCode,
    userTracks: userTracks.statusCode,
    userPlaylists: userPlaylists.statusCode,
    mixedTrackIds: ids(mixedBody.paginatedTrackResponse),
    mixedTrackCount: mixedBody.trackCount,
    mixedTracksTotal: (mixedTracks.json() as { totalElements: number }).totalElements,
    history: ids(history.json() as { content: Array<{ id: number }> }),
    historyTotal: (history.json() as { totalElements: number }).totalElements,
    internalTracks: (internalTracks.json() as { tracks: Array<{ id: number }> }).tracks.map((x) => x.id),
    internalPlaylists: (internalPlaylists.json() as { playlists: Array<{ id: number }> }).playlists.map((x) => x.id),
  };
}

const VISIBLE = () => ({
  track: 200,
  anonymous: 200,
  token: 200,
  waveform: 200,
  playlist: 200,
  userTracks: 200,
  userPlaylists: 200,
  mixedTrackIds: [t.banned.id, t.other.id],
  mixedTrackCount: 2,
  mixedTracksTotal: 2,
  history: [t.banned.id, t.other.id],
  historyTotal: 2,
  internalTracks: [t.banned.id, t.other.id],
  internalPlaylists: [p.banned, p.mixed],
});

describe('TRK-* / PLS-* R14 ban (identity.user.banned.v1 / unbanned.v1) in catalog', () => {
  it('before the ban, the listener sees the content', async () => {
    expect(await listenerView()).toEqual(VISIBLE());
  });

  it("TRK-6, TRK-13, TRK-15, PLS-4, USR-18, USR-19, PLS-11, USR-17 and the internal renderings hide a banned user's content", async () => {
    await setBan(true);
    expect(await listenerView()).toEqual({
      track: 404,
      anonymous: 404,
      token: 404,
      waveform: 404,
      playlist: 404,
      userTracks: 404,
      userPlaylists: 404,
      mixedTrackIds: [t.other.id],
      mixedTrackCount: 1,
      mixedTracksTotal: 1,
      history: [t.other.id],
      historyTotal: 1,
      internalTracks: [t.other.id],
      internalPlaylists: [p.mixed],
    });
    const played = await app.inject({ method: 'POST', url: `/api/tracks/${t.banned.id}/play`, headers: LISTENER, payload: {} });
    expect(played.statusCode).toBe(404);
  });

  it("admins still see the banned user's content", async () => {
    expect((await get(`/api/tracks/${t.banned.id}`, ADMIN)).statusCode).toBe(200);
    expect((await get(`/api/playlists/${p.banned}`, ADMIN)).statusCode).toBe(200);
    const tracks = await get(`/api/users/${USERS.banned}/tracks`, ADMIN);
    expect(tracks.statusCode).toBe(200);
    expect(ids(tracks.json())).toEqual([t.banned.id]);
    const mixed = (await get(`/api/playlists/${p.mixed}`, ADMIN)).json() as { paginatedTrackResponse: { content: Array<{ id: number }> } };
    expect(ids(mixed.paginatedTrackResponse)).toEqual([t.banned.id, t.other.id]);
    const rendered = await app.inject({
      method: 'POST',
      url: INTERNAL_ROUTES.tracks,
      payload: { viewerId: USERS.admin, viewerRole: 'ADMIN', trackIds: [t.banned.id] },
    });
    expect((rendered.json() as { tracks: Array<{ id: number }> }).tracks.map((x) => x.id)).toEqual([t.banned.id]);
  });

  it('the unban restores everything', async () => {
    await setBan(false);
    expect(await listenerView()).toEqual(VISIBLE());
  });
});

describe('MOD-8 ban counts (R14): social.counts.recounted.v1 sets the copies of the track and playlist counts', () => {
  it('TRK-6 and PLS-4 show the recounted likeCount, repostCount and commentCount', async () => {
    await publish(
      createEnvelope(CountsRecounted, {
        userId: USERS.banned,
        cause: 'USER_BANNED',
        tracks: [{ trackId: t.other.id, likeCount: 4, repostCount: 3, commentCount: 2 }],
        playlists: [{ playlistId: p.mixed, likeCount: 5, repostCount: 1 }],
        users: [{ userId: USERS.other, followerCount: 9, followingCount: 8 }],
        at: new Date().toISOString(),
      }),
    );
    await waitFor(async () => (await app.infra.prisma.track.count({ where: { id: t.other.id, likeCount: 4 } })) === 1, { message: 'recount not applied' });
    expect((await get(`/api/tracks/${t.other.id}`, LISTENER)).json()).toMatchObject({ likeCount: 4, repostCount: 3, commentCount: 2 });
    expect((await get(`/api/playlists/${p.mixed}`, LISTENER)).json()).toMatchObject({ likeCount: 5, repostCount: 1 });
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { connectNats, createEnvelope, TrackChanged, UserRegistered, type NatsConnection, type TrackSnapshot } from '@msp/events';
import { pageSchema, TrackSchema } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';

/**
 * Social's Track (full) lists (USR-20, USR-22, ENG-18, ENG-20) carry catalog's fields: social picks
 * the page, catalog renders it for the viewer in one internal call, social keeps its own flags.
 */
const fleet = new Fleet();
let nc: NatsConnection;

const ARTIST = 5100;
const FAN = 5200;
const TRACK = 8101;
const HIDDEN = 8102;

const identityApp = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const catalogApp = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const socialApp = () => fleet.apps.get('social') as Awaited<ReturnType<typeof buildSocial>>;

async function auth(userId: number): Promise<Record<string, string>> {
  const token = await identityApp().keys.sign(
    { sub: String(userId), username: `user${userId}`, role: 'LISTENER', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
    1800,
    'msp-identity',
  );
  return { authorization: `Bearer ${token}` };
}

async function publish(type: string, envelope: { id: string }) {
  await jetstream(nc).publish(type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function register(userId: number, username: string) {
  const envelope = createEnvelope(UserRegistered, {
    userId,
    username,
    displayName: username,
    avatarUrl: null,
    tier: 'FREE',
    role: 'ARTIST',
    isPrivate: false,
    createdAt: new Date().toISOString(),
  });
  await publish(envelope.type, envelope);
}

/** A FINISHED public track with renditions in catalog, and the TrackChanged event social builds its copy from. */
async function createTrack(trackId: number) {
  const now = new Date();
  const row = await catalogApp().infra.prisma.track.create({
    data: {
      id: trackId,
      artistId: ARTIST,
      title: `Song ${trackId}`,
      trackSlug: `song-${trackId}`,
      genre: 'House',
      description: `Liner notes of ${trackId}`,
      tags: ['deep', 'warm'],
      releaseDate: new Date('2025-06-01T00:00:00.000Z'),
      state: 'FINISHED',
      secretToken: randomUUID().replace(/-/g, ''),
      uploadId: randomUUID(),
      durationSeconds: 200,
      publishedAt: now,
      playCount: 12,
      completedPlayCount: 4,
      progressiveKey: `tracks/${trackId}/full.m4a`,
      hlsPlaylistKey: `tracks/${trackId}/index.m3u8`,
      previewKey: `tracks/${trackId}/preview.m4a`,
      waveformKey: `public/${randomUUID()}/waveform.json`,
    },
  });
  const snapshot: TrackSnapshot = {
    trackId,
    artistId: ARTIST,
    title: row.title,
    trackSlug: row.trackSlug,
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: 200,
    coverUrl: null,
    genre: 'House',
    publishedAt: now.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
  const envelope = createEnvelope(TrackChanged, snapshot);
  await publish(envelope.type, envelope);
}

const TrackPage = pageSchema(TrackSchema.strict());

async function list(path: string, userId?: number) {
  const res = await fleet.fetch(path, { headers: userId ? await auth(userId) : {} });
  expect(res.status, path).toBe(200);
  return TrackPage.parse(await res.json());
}

beforeAll(async () => {
  await fleet.start({ RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' });
  nc = await connectNats(fleet.nats.url, 'e2e-social-tracks');
  await register(ARTIST, 'liner-artist');
  await register(FAN, 'liner-fan');
  await createTrack(TRACK);
  await createTrack(HIDDEN);
  await waitFor(
    async () =>
      (await socialApp().infra.prisma.trackRef.count({ where: { trackId: { in: [TRACK, HIDDEN] } } })) === 2 &&
      (await socialApp().infra.prisma.userSummary.count({ where: { userId: { in: [ARTIST, FAN] } } })) === 2 &&
      (await catalogApp().infra.prisma.userSummary.count({ where: { userId: { in: [ARTIST, FAN] } } })) === 2,
    { timeoutMs: 15_000, message: 'social/catalog did not receive the tracks and users' },
  );
  for (const id of [HIDDEN, TRACK]) {
    for (const action of ['like', 'repost']) {
      const res = await fleet.fetch(`/api/tracks/${id}/${action}`, { method: 'POST', headers: await auth(FAN) });
      expect(res.status).toBe(200);
    }
  }
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await fleet.close();
}, 60_000);

describe('USR-20 liked tracks of the current user, rendered by catalog', () => {
  it("carries catalog's description, tags, release date, play counts and media URLs, and social's flags", async () => {
    const page = await list('/api/users/me/liked-tracks', FAN);
    expect(page.content.map((t) => t.id)).toEqual([TRACK, HIDDEN]);
    const track = page.content[0]!;
    expect(track).toMatchObject({
      id: TRACK,
      description: `Liner notes of ${TRACK}`,
      tags: ['deep', 'warm'],
      releaseDate: '2025-06-01',
      playCount: 12,
      completedPlayCount: 4,
      trackDurationSeconds: 200,
      isLiked: true,
      isReposted: true,
      likeCount: 1,
      repostCount: 1,
      artist: { id: ARTIST, username: 'liner-artist' },
    });
    expect(track.waveformUrl).toMatch(/\/api\/media\/assets\/[0-9a-f-]{36}\/waveform\.json$/);
    expect(track.trackUrl).toMatch(new RegExp(`/api/media/tracks/${TRACK}/full\\.m4a\\?`));
    expect(track.hlsUrl).toMatch(/index\.m3u8\?/);
    expect(track.trackPreviewUrl).toMatch(/preview\.m4a\?/);
  });
});

describe('ENG-20 / USR-22 / ENG-18 other track lists, rendered by catalog', () => {
  it('ENG-20 and USR-22 for an anonymous viewer: catalog fields, no flags; ENG-18 with repostedBy', async () => {
    const liked = await list('/api/users/liner-fan/liked-tracks');
    expect(liked.content.map((t) => [t.id, t.description, t.isLiked])).toEqual([
      [TRACK, `Liner notes of ${TRACK}`, false],
      [HIDDEN, `Liner notes of ${HIDDEN}`, false],
    ]);
    const reposted = await list('/api/users/liner-fan/reposted-tracks');
    expect(reposted.content[0]).toMatchObject({ id: TRACK, tags: ['deep', 'warm'], repostedBy: { id: FAN }, repostedAt: expect.stringMatching(/Z$/) });
    const mine = await list('/api/users/me/repost', FAN);
    expect(mine.content[0]).toMatchObject({ id: TRACK, playCount: 12, isReposted: true, isLiked: true, repostedBy: { id: FAN } });
  });

  it('drops a track catalog no longer shows the viewer (made private in catalog), even before social hears of it', async () => {
    await catalogApp().infra.prisma.track.update({ where: { id: HIDDEN }, data: { isPrivate: true } });
    const liked = await list('/api/users/liner-fan/liked-tracks', FAN);
    expect(liked.content.map((t) => t.id)).toEqual([TRACK]);
    expect(liked.totalElements).toBe(2);
    // The artist still sees it, with the secret token catalog shows its owner.
    const own = await list('/api/users/liner-fan/liked-tracks', ARTIST);
    expect(own.content.find((t) => t.id === HIDDEN)?.secretToken).toEqual(expect.any(String));
  });
});

describe("FOL-1 / FOL-2 the artist's followerCount on catalog's User summary (TRK-6)", () => {
  async function artistFollowers(): Promise<number> {
    const res = await fleet.fetch(`/api/tracks/${TRACK}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { artist: { followerCount: number } }).artist.followerCount;
  }

  it("follows social's count within 5 s of a follow and of an unfollow", async () => {
    const before = await artistFollowers();
    expect((await fleet.fetch(`/api/users/${ARTIST}/follow`, { method: 'POST', headers: await auth(FAN) })).status).toBe(200);
    await waitFor(async () => (await artistFollowers()) === before + 1, { timeoutMs: 5000, message: 'followerCount did not rise' });
    expect((await fleet.fetch(`/api/users/${ARTIST}/follow`, { method: 'DELETE', headers: await auth(FAN) })).status).toBe(200);
    await waitFor(async () => (await artistFollowers()) === before, { timeoutMs: 5000, message: 'followerCount did not fall back' });
  });
});

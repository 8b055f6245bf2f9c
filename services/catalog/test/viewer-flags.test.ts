import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, ItemLiked, ItemReposted, ItemUnliked, ItemUnreposted, UserBlocked, UserFollowed, UserUnfollowed } from '@msp/events';
import { TrackSchema, pageSchema, type Track } from '@msp/contracts';
import { createTestDatabase, startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { createPgPool } from '@msp/db';
import { buildApp, loadCatalogConfig } from '../src/app.js';
import { backfillFollows, backfillPlaylistEngagements } from '../src/modules/social-sync/copy-backfill.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const socialMigrations = fileURLToPath(new URL('../../social/prisma/migrations', import.meta.url));

const ARTIST = 701;
const VIEWER = 702;
const OTHER = 703;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let social: Server;
/** Every call catalog makes to social. Its answers claim everything is liked and followed, so a flag read from it would show. */
const socialCalls: string[] = [];

function startFakeSocial(): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      socialCalls.push(req.url ?? '');
      const body = JSON.parse(raw || '{}') as { userIds?: number[]; trackIds?: number[]; playlistIds?: number[] };
      const users = (body.userIds ?? []).map((userId) => ({ userId, isFollowing: true, isFollowed: false, isBlocked: false, hasBlockedViewer: false }));
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          tracks: (body.trackIds ?? []).map((id) => ({ id, isLiked: true, isReposted: true })),
          playlists: (body.playlistIds ?? []).map((id) => ({ id, isLiked: true, isReposted: true })),
          users,
          items: users,
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const at = () => new Date().toISOString();
const engagement = { targetType: 'TRACK' as const, ownerId: ARTIST };
const as = (userId: number) => ({ 'x-user-id': String(userId), 'x-user-role': 'LISTENER', 'x-user-tier': 'FREE', 'x-username': `u${userId}` });

async function insertTrack(slug: string): Promise<number> {
  const row = await app.infra.prisma.track.create({
    data: {
      artistId: ARTIST,
      title: `Title ${slug}`,
      trackSlug: slug,
      genre: 'Techno',
      tags: [],
      releaseDate: new Date('2026-01-15T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      publishedAt: new Date(),
      durationSeconds: 120,
      progressiveKey: `tracks/${slug}/full.m4a`,
      waveformKey: `public/${randomUUID()}/waveform.json`,
    },
    select: { id: true },
  });
  return row.id;
}

async function track(id: number, userId?: number): Promise<Track> {
  const res = await app.inject({ method: 'GET', url: `/api/tracks/${id}`, headers: userId ? as(userId) : {} });
  expect(res.statusCode, res.body).toBe(200);
  return TrackSchema.parse(res.json());
}

async function page(userId?: number): Promise<Track[]> {
  const res = await app.inject({ method: 'GET', url: `/api/users/${ARTIST}/tracks?size=50`, headers: userId ? as(userId) : {} });
  expect(res.statusCode, res.body).toBe(200);
  return pageSchema(TrackSchema).parse(res.json()).content;
}

const flagsOf = (t: Track) => ({ isLiked: t.isLiked, isReposted: t.isReposted, isFollowing: t.artist.isFollowing });

const ids = {} as Record<'liked' | 'reposted' | 'both' | 'neither', number>;

beforeAll(async () => {
  social = await startFakeSocial();
  env = await startServiceTestEnv('catalog_viewer_flags', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: `http://127.0.0.1:${(social.address() as AddressInfo).port}` }), { logger: false });
  await app.ready();
  await app.infra.prisma.userSummary.createMany({
    data: [
      { userId: ARTIST, username: 'artist', displayName: 'Artist', role: 'ARTIST' },
      { userId: VIEWER, username: 'viewer', displayName: 'Viewer' },
      { userId: OTHER, username: 'other', displayName: 'Other' },
    ],
  });
  for (const key of ['neither', 'both', 'reposted', 'liked'] as const) ids[key] = await insertTrack(`flags-${key}`);
  // Social's events, through catalog's real consumers (social-sync and follows-copy).
  await publish(createEnvelope(ItemLiked, { ...engagement, userId: VIEWER, targetId: ids.liked, likeCount: 1, at: at() }));
  await publish(createEnvelope(ItemLiked, { ...engagement, userId: VIEWER, targetId: ids.both, likeCount: 1, at: at() }));
  await publish(createEnvelope(ItemReposted, { ...engagement, userId: VIEWER, targetId: ids.both, repostCount: 1, at: at() }));
  await publish(createEnvelope(ItemReposted, { ...engagement, userId: VIEWER, targetId: ids.reposted, repostCount: 1, at: at() }));
  // Another listener's like is not the viewer's.
  await publish(createEnvelope(ItemLiked, { ...engagement, userId: OTHER, targetId: ids.neither, likeCount: 1, at: at() }));
  await publish(createEnvelope(UserFollowed, { followerId: VIEWER, followeeId: ARTIST, followerFollowingCount: 1, followeeFollowerCount: 1, at: at() }));
  await waitFor(async () => (await app.infra.prisma.trackEngagement.count()) === 5 && (await app.infra.prisma.userFollow.count()) === 1, {
    timeoutMs: 10_000,
    message: 'the copies did not receive the likes, reposts and follow',
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  await new Promise((resolve) => social?.close(resolve));
});

describe("TRK-6 / USR-18 the viewer's isLiked, isReposted and isFollowing from catalog's copies, without social", () => {
  it('one track: liked, reposted, both, neither', async () => {
    socialCalls.length = 0;
    expect(flagsOf(await track(ids.liked, VIEWER))).toEqual({ isLiked: true, isReposted: false, isFollowing: true });
    expect(flagsOf(await track(ids.reposted, VIEWER))).toEqual({ isLiked: false, isReposted: true, isFollowing: true });
    expect(flagsOf(await track(ids.both, VIEWER))).toEqual({ isLiked: true, isReposted: true, isFollowing: true });
    expect(flagsOf(await track(ids.neither, VIEWER))).toEqual({ isLiked: false, isReposted: false, isFollowing: true });
    // Anonymous, another listener, and the artist (never following themselves).
    expect(flagsOf(await track(ids.both))).toEqual({ isLiked: false, isReposted: false, isFollowing: false });
    expect(flagsOf(await track(ids.neither, OTHER))).toEqual({ isLiked: true, isReposted: false, isFollowing: false });
    expect(flagsOf(await track(ids.both, ARTIST))).toEqual({ isLiked: false, isReposted: false, isFollowing: false });
    expect(socialCalls).toEqual([]);
  });

  it('a page of the artist’s tracks: every track with its own flags, one statement, no call to social', async () => {
    socialCalls.length = 0;
    const flags = new Map((await page(VIEWER)).map((t) => [t.id, flagsOf(t)]));
    expect(Object.fromEntries(Object.entries(ids).map(([key, id]) => [key, flags.get(id)]))).toEqual({
      liked: { isLiked: true, isReposted: false, isFollowing: true },
      reposted: { isLiked: false, isReposted: true, isFollowing: true },
      both: { isLiked: true, isReposted: true, isFollowing: true },
      neither: { isLiked: false, isReposted: false, isFollowing: true },
    });
    expect((await page()).every((t) => !t.isLiked && !t.isReposted && !t.artist.isFollowing)).toBe(true);
    expect(socialCalls).toEqual([]);
  });

  it('after unlike, unrepost and unfollow the flags fall back (one track and the page)', async () => {
    await publish(createEnvelope(ItemUnliked, { ...engagement, userId: VIEWER, targetId: ids.both, likeCount: 0, at: at() }));
    await publish(createEnvelope(ItemUnreposted, { ...engagement, userId: VIEWER, targetId: ids.reposted, repostCount: 0, at: at() }));
    await publish(createEnvelope(UserUnfollowed, { followerId: VIEWER, followeeId: ARTIST, followerFollowingCount: 0, followeeFollowerCount: 0, at: at() }));
    await waitFor(async () => !(await track(ids.both, VIEWER)).isLiked && !(await track(ids.liked, VIEWER)).artist.isFollowing, {
      timeoutMs: 5000,
      message: 'the unlike and the unfollow did not reach the copies',
    });
    await waitFor(async () => !(await track(ids.reposted, VIEWER)).isReposted, { timeoutMs: 5000, message: 'the unrepost did not reach the copy' });
    expect(flagsOf(await track(ids.both, VIEWER))).toEqual({ isLiked: false, isReposted: true, isFollowing: false });
    const flags = new Map((await page(VIEWER)).map((t) => [t.id, flagsOf(t)]));
    expect(flags.get(ids.liked)).toEqual({ isLiked: true, isReposted: false, isFollowing: false });
    expect(flags.get(ids.reposted)).toEqual({ isLiked: false, isReposted: false, isFollowing: false });
    expect(flags.get(ids.both)).toEqual({ isLiked: false, isReposted: true, isFollowing: false });
  });

  it('a block removes the copied follows both ways (R7), as social does', async () => {
    await publish(createEnvelope(UserFollowed, { followerId: OTHER, followeeId: VIEWER, followerFollowingCount: 1, followeeFollowerCount: 1, at: at() }));
    await publish(createEnvelope(UserFollowed, { followerId: VIEWER, followeeId: OTHER, followerFollowingCount: 1, followeeFollowerCount: 1, at: at() }));
    await waitFor(async () => (await app.infra.prisma.userFollow.count()) === 2, { timeoutMs: 5000, message: 'follows not copied' });
    await publish(createEnvelope(UserBlocked, { blockerId: VIEWER, blockedId: OTHER, counts: [], at: at() }));
    await waitFor(async () => (await app.infra.prisma.userFollow.count()) === 0, { timeoutMs: 5000, message: 'the block left follows in the copy' });
  });
});

describe("isFollowing: the one-off copy of social's older follows (scripts/backfill-social-copies.ts follows)", () => {
  it('copies follows the stream no longer holds, removes pairs social dropped, and a second run writes nothing', async () => {
    const socialDb = await createTestDatabase('social_follows_backfill', socialMigrations);
    const socialPool = createPgPool(socialDb.url, 1);
    const catalogPool = createPgPool(env.env.DATABASE_URL!, 1);
    try {
      await app.infra.prisma.userFollow.deleteMany();
      // Social holds two old follows (never seen as events) and the one the consumer copied.
      await socialPool.query(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2), ($3, $2), ($1, $3)`, [VIEWER, ARTIST, OTHER]);
      await app.infra.prisma.userFollow.create({ data: { followerId: VIEWER, followeeId: OTHER } });
      // A pair social no longer holds: an unfollow applied by the consumer before the copy wrote it.
      await app.infra.prisma.userFollow.create({ data: { followerId: OTHER, followeeId: VIEWER } });
      expect(flagsOf(await track(ids.liked, VIEWER)).isFollowing).toBe(false);

      expect(await backfillFollows(socialPool, catalogPool, 2)).toEqual({ read: 3, inserted: 2, removed: 1 });
      const pairs = await app.infra.prisma.userFollow.findMany({ orderBy: [{ followerId: 'asc' }, { followeeId: 'asc' }] });
      expect(pairs).toEqual([
        { followerId: VIEWER, followeeId: ARTIST },
        { followerId: VIEWER, followeeId: OTHER },
        { followerId: OTHER, followeeId: ARTIST },
      ]);
      expect(flagsOf(await track(ids.liked, VIEWER)).isFollowing).toBe(true);
      expect(await backfillFollows(socialPool, catalogPool)).toEqual({ read: 3, inserted: 0, removed: 0 });
    } finally {
      await Promise.all([socialPool.end(), catalogPool.end()]);
      await socialDb.drop();
    }
  });
});

describe("PLS-4 isLiked / isReposted of playlists: the one-off copy of social's older likes and reposts (scripts/backfill-social-copies.ts playlist-engagements)", () => {
  it('copies likes and reposts of playlists with their times, removes pairs social dropped, and a second run writes nothing', async () => {
    const socialDb = await createTestDatabase('social_playlist_backfill', socialMigrations);
    const socialPool = createPgPool(socialDb.url, 1);
    const catalogPool = createPgPool(env.env.DATABASE_URL!, 1);
    const old = new Date('2025-03-04T05:06:07.000Z');
    try {
      await socialPool.query(`INSERT INTO playlist_likes (user_id, playlist_id, created_at) VALUES ($1, 11, $3), ($1, 12, $3), ($2, 11, $3)`, [
        VIEWER,
        OTHER,
        old,
      ]);
      await socialPool.query(`INSERT INTO playlist_reposts (user_id, playlist_id, created_at) VALUES ($1, 12, $2)`, [VIEWER, old]);
      // Already copied by the consumer, and a like social no longer holds (an unlike applied before the copy).
      await app.infra.prisma.playlistEngagement.createMany({
        data: [
          { kind: 'L', userId: VIEWER, playlistId: 12, createdAt: new Date() },
          { kind: 'L', userId: OTHER, playlistId: 13, createdAt: new Date() },
          { kind: 'R', userId: OTHER, playlistId: 13, createdAt: new Date() },
        ],
      });

      expect(await backfillPlaylistEngagements(socialPool, catalogPool, 2)).toEqual({
        likes: { read: 3, inserted: 2, removed: 1 },
        reposts: { read: 1, inserted: 1, removed: 1 },
      });
      const rows = await app.infra.prisma.playlistEngagement.findMany({ orderBy: [{ kind: 'asc' }, { userId: 'asc' }, { playlistId: 'asc' }] });
      expect(rows.map((r) => [r.kind, r.userId, r.playlistId, r.createdAt.getTime() === old.getTime()])).toEqual([
        ['L', VIEWER, 11, true],
        ['L', VIEWER, 12, false],
        ['L', OTHER, 11, true],
        ['R', VIEWER, 12, true],
      ]);
      expect(await backfillPlaylistEngagements(socialPool, catalogPool)).toEqual({
        likes: { read: 3, inserted: 0, removed: 0 },
        reposts: { read: 1, inserted: 0, removed: 0 },
      });
    } finally {
      await Promise.all([socialPool.end(), catalogPool.end()]);
      await socialDb.drop();
    }
  });
});

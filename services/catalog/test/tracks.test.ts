import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { CURATED_GENRES, ErrorResponseSchema, pageSchema, TrackSchema, type Track } from '@msp/contracts';
import { createEnvelope, UserDeleted, UserRegistered, UserTierChanged, UserUpdated, type EventEnvelope } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: `${envelope.id}-${Math.random()}` });
}

function registered(userId: number, username: string, tier: 'FREE' | 'PRO' = 'FREE') {
  return createEnvelope(UserRegistered, {
    userId,
    username,
    displayName: username.toUpperCase(),
    avatarUrl: null,
    tier,
    role: 'ARTIST',
    isPrivate: false,
    createdAt: new Date().toISOString(),
  });
}

async function registerAll(users: Array<[number, string, ('FREE' | 'PRO')?]>) {
  for (const [id, name, tier] of users) await publish(registered(id, name, tier));
  const ids = users.map(([id]) => id);
  await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: { in: ids } } })) === ids.length, {
    message: 'projection did not catch up',
  });
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

async function insertTrack(
  artistId: number,
  slug: string,
  fields: Partial<{
    state: 'UPLOADING' | 'PROCESSING' | 'FINISHED' | 'FAILED';
    isPrivate: boolean;
    createdAt: Date;
    deletedAt: Date | null;
    publishedAt: Date | null;
    durationSeconds: number | null;
  }> = {},
) {
  const track = await app.infra.prisma.track.create({
    data: {
      artistId,
      title: `Title ${slug}`,
      trackSlug: slug,
      genre: 'Techno',
      tags: ['night', 'live'],
      releaseDate: new Date('2026-01-15T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      ...fields,
    },
    select: { id: true, secretToken: true },
  });
  return track;
}

function trackIds(body: { content: Array<{ id: number }> }) {
  return body.content.map((t) => t.id);
}

/**
 * Track (full) fields every operation sends; the optional ones belong to named operations only,
 * but `loudness`, which catalog always sends (optional only for records rendered without catalog).
 */
const TRACK_KEYS = Object.entries(TrackSchema.shape)
  .filter(([key, schema]) => key === 'loudness' || !schema.safeParse(undefined).success)
  .map(([key]) => key)
  .sort();

beforeAll(async () => {
  env = await startServiceTestEnv('catalog', migrations);
  app = await buildApp(loadCatalogConfig(env.env), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('catalog user projection from identity events', () => {
  it('creates the user summary once, even when the same event is delivered twice', async () => {
    const event = registered(101, 'alice');
    await publish(event);
    await publish(event);
    const row = await waitFor(() => app.infra.prisma.userSummary.findUnique({ where: { userId: 101 } }).then((r) => r ?? undefined), {
      message: 'projection did not catch up',
    });
    expect(row).toMatchObject({
      username: 'alice',
      displayName: 'ALICE',
      avatarUrl: null,
      tier: 'FREE',
      role: 'ARTIST',
      isPrivate: false,
      isDeleted: false,
      followerCount: 0,
      trackCount: 0,
    });
    expect(await app.infra.prisma.processedEvent.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('applies a rename, a tier change and a deletion', async () => {
    await registerAll([[102, 'bob']]);
    await publish(
      createEnvelope(UserUpdated, {
        userId: 102,
        username: 'bobby',
        displayName: 'Bobby',
        avatarUrl: 'http://cdn.test/b.png',
        tier: 'FREE',
        role: 'ARTIST',
        isPrivate: true,
      }),
    );
    await publish(createEnvelope(UserTierChanged, { userId: 102, tier: 'PRO' }));
    const row = await waitFor(() => app.infra.prisma.userSummary.findFirst({ where: { userId: 102, tier: 'PRO' } }).then((r) => r ?? undefined), {
      message: 'tier change did not arrive',
    });
    expect(row).toMatchObject({ username: 'bobby', displayName: 'Bobby', avatarUrl: 'http://cdn.test/b.png', tier: 'PRO', isPrivate: true });
    // Account deletion (docs/account-control.md): the row goes once the user's content is gone.
    await publish(createEnvelope(UserDeleted, { userId: 102 }));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: 102 } })) === 0, { message: 'deletion did not arrive' });
  });
});

describe('TRK-20 genres', () => {
  it('answers the curated list as a bare array, cacheable', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/genres' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([...CURATED_GENRES]);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
  });

  it('is described in the OpenAPI document with TRK-21', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/api/genres'].get.operationId).toBe('TRK-20');
    expect(doc.paths['/api/users/me/tracks'].get.operationId).toBe('TRK-21');
  });
});

describe('TRK-21 tracks of the current user', () => {
  const ids: Record<string, number> = {};
  let ninaToken = '';

  beforeAll(async () => {
    await registerAll([
      [301, 'nina', 'PRO'],
      [302, 'omar'],
    ]);
    const first = await insertTrack(301, 'nina-first', { state: 'FINISHED', createdAt: at(1), publishedAt: at(1), durationSeconds: 187 });
    ids.first = first.id;
    ninaToken = first.secretToken;
    ids.failed = (await insertTrack(301, 'nina-failed', { state: 'FAILED', createdAt: at(2) })).id;
    ids.private = (await insertTrack(301, 'nina-private', { state: 'PROCESSING', isPrivate: true, createdAt: at(3) })).id;
    ids.deleted = (await insertTrack(301, 'nina-deleted', { state: 'FINISHED', createdAt: at(4), deletedAt: at(10) })).id;
    ids.latest = (await insertTrack(301, 'nina-latest', { state: 'FINISHED', createdAt: at(5) })).id;
    ids.omar = (await insertTrack(302, 'omar-only', { state: 'FINISHED', createdAt: at(6) })).id;
  });

  it('answers 401 UNAUTHORIZED without an identity, even with bad parameters', async () => {
    for (const url of ['/api/users/me/tracks', '/api/users/me/tracks?size=0']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      const body = ErrorResponseSchema.parse(res.json());
      expect(body).toMatchObject({ status: 401, error: 'Unauthorized', code: 'UNAUTHORIZED', path: '/api/users/me/tracks' });
      expect(body.errors).toBeUndefined();
    }
  });

  it("lists only the caller's non-deleted tracks, every state and privacy, newest first", async () => {
    const res = await app.inject({ method: 'GET', url: '/api/users/me/tracks', headers: { 'x-user-id': '301' } });
    expect(res.statusCode).toBe(200);
    const body = pageSchema(TrackSchema).parse(res.json());
    expect(trackIds(body)).toEqual([ids.latest, ids.private, ids.failed, ids.first]);
    expect({ ...res.json(), content: undefined }).toEqual({
      content: undefined,
      pageNumber: 0,
      pageSize: 20,
      totalElements: 4,
      totalPages: 1,
      isLast: true,
    });
    expect(Object.keys(res.json()).sort()).toEqual(['content', 'isLast', 'pageNumber', 'pageSize', 'totalElements', 'totalPages']);
    for (const item of res.json().content as unknown[]) {
      expect(() => TrackSchema.parse(item)).not.toThrow();
      expect(Object.keys(item as object).sort()).toEqual(TRACK_KEYS);
    }

    const other = await app.inject({ method: 'GET', url: '/api/users/me/tracks', headers: { 'x-user-id': '302' } });
    expect(trackIds(other.json())).toEqual([ids.omar]);
  });

  it('maps a track to Track (full) with the artist from the projection and the owner’s secret token', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/users/me/tracks?state=FINISHED&size=1&page=1', headers: { 'x-user-id': '301' } });
    const [track] = res.json().content as Track[];
    expect(track).toEqual({
      id: ids.first,
      title: 'Title nina-first',
      trackSlug: 'nina-first',
      artist: {
        id: 301,
        username: 'nina',
        displayName: 'NINA',
        avatarUrl: null,
        tier: 'PRO',
        isFollowing: false,
        followerCount: 0,
        trackCount: 0,
      },
      description: null,
      genre: 'Techno',
      tags: ['night', 'live'],
      releaseDate: '2026-01-15',
      uploadDate: '2026-01-01T00:00:01.000Z',
      createdAt: '2026-01-01T00:00:01.000Z',
      publishedAt: '2026-01-01T00:00:01.000Z',
      state: 'FINISHED',
      isPrivate: false,
      access: 'PLAYABLE',
      trackUrl: null,
      trackPreviewUrl: null,
      hlsUrl: null,
      coverUrl: null,
      waveformUrl: null,
      trackDurationSeconds: 187,
      playCount: 0,
      completedPlayCount: 0,
      likeCount: 0,
      repostCount: 0,
      commentCount: 0,
      isLiked: false,
      isReposted: false,
      secretToken: ninaToken,
      // Written outside processing: never measured (docs/sound.md).
      loudness: null,
    });
    expect(ninaToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('filters by state and pages with the Page wrapper', async () => {
    const finished = await app.inject({ method: 'GET', url: '/api/users/me/tracks?state=FINISHED', headers: { 'x-user-id': '301' } });
    expect(trackIds(finished.json())).toEqual([ids.latest, ids.first]);
    expect(finished.json().totalElements).toBe(2);

    const failed = await app.inject({ method: 'GET', url: '/api/users/me/tracks?state=FAILED', headers: { 'x-user-id': '301' } });
    expect(trackIds(failed.json())).toEqual([ids.failed]);

    const second = await app.inject({ method: 'GET', url: '/api/users/me/tracks?page=1&size=3', headers: { 'x-user-id': '301' } });
    expect({ ...second.json(), content: trackIds(second.json()) }).toEqual({
      content: [ids.first],
      pageNumber: 1,
      pageSize: 3,
      totalElements: 4,
      totalPages: 2,
      isLast: true,
    });

    const past = await app.inject({ method: 'GET', url: '/api/users/me/tracks?page=9', headers: { 'x-user-id': '301' } });
    expect(past.json()).toEqual({ content: [], pageNumber: 9, pageSize: 20, totalElements: 4, totalPages: 1, isLast: true });

    const none = await app.inject({ method: 'GET', url: '/api/users/me/tracks', headers: { 'x-user-id': '399' } });
    expect(none.json()).toEqual({ content: [], pageNumber: 0, pageSize: 20, totalElements: 0, totalPages: 0, isLast: true });
  });

  it('answers 400 VALIDATION_FAILED with the failing field for a bad state or paging', async () => {
    const cases: Array<[string, string]> = [
      ['state=DONE', 'state'],
      ['state=finished', 'state'],
      ['size=0', 'size'],
      ['size=101', 'size'],
      ['size=abc', 'size'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
    ];
    for (const [query, field] of cases) {
      const res = await app.inject({ method: 'GET', url: `/api/users/me/tracks?${query}`, headers: { 'x-user-id': '301' } });
      expect(res.statusCode, query).toBe(400);
      const body = ErrorResponseSchema.parse(res.json());
      expect(body.code, query).toBe('VALIDATION_FAILED');
      expect(
        body.errors?.map((e) => e.field),
        query,
      ).toContain(field);
    }
  });

  it('falls back to the forwarded identity when the projection has not caught up', async () => {
    const own = await insertTrack(303, 'pat-early', { createdAt: at(7) });
    const res = await app.inject({
      method: 'GET',
      url: '/api/users/me/tracks',
      headers: { 'x-user-id': '303', 'x-username': 'pat', 'x-user-tier': 'PRO' },
    });
    expect(res.statusCode).toBe(200);
    const [track] = res.json().content as Track[];
    expect(track?.id).toBe(own.id);
    expect(track?.state).toBe('UPLOADING');
    expect(track?.artist).toEqual({
      id: 303,
      username: 'pat',
      displayName: 'pat',
      avatarUrl: null,
      tier: 'PRO',
      isFollowing: false,
      followerCount: 0,
      trackCount: 0,
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import {
  ArtistTrackCountChanged,
  createEnvelope,
  PlaylistChanged,
  PlaylistDeleted,
  TrackChanged,
  TrackDeleted,
  TrackPublished,
  type EventEnvelope,
  type TrackSnapshot,
} from '@msp/events';
import { waitFor } from '@msp/testing';
import { as, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;

async function publish(envelope: EventEnvelope) {
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

function snapshot(overrides: Partial<TrackSnapshot> = {}): TrackSnapshot {
  return {
    trackId: 7,
    artistId: 30,
    title: 'Night Drive',
    trackSlug: 'night-drive',
    state: 'PROCESSING',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: null,
    coverUrl: null,
    genre: 'Synthwave',
    publishedAt: null,
    createdAt: '2026-02-03T04:05:06.789Z',
    ...overrides,
  };
}

beforeAll(async () => {
  h = await startSocial('social_catalog_sync');
  await seedUsers(h.app, [
    { id: 30, username: 'artist' },
    { id: 31, username: 'fan' },
  ]);
});

afterAll(async () => {
  await h?.close();
});

describe('ENG-* social keeps a projection of catalog tracks and playlists', () => {
  it("a track becomes likeable when catalog publishes it, keeps social's counts, and disappears when deleted", async () => {
    await publish(createEnvelope(TrackChanged, snapshot()));
    await waitFor(async () => (await h.app.infra.prisma.trackRef.count({ where: { trackId: 7 } })) === 1, { message: 'track not projected' });
    expect((await h.app.inject({ method: 'POST', url: '/api/tracks/7/like', headers: as(31) })).statusCode).toBe(404);

    const published = createEnvelope(TrackPublished, snapshot({ state: 'FINISHED', durationSeconds: 200, publishedAt: '2026-02-03T05:00:00.000Z' }));
    await publish(published);
    const liked = await waitFor(
      async () => {
        const r = await h.app.inject({ method: 'POST', url: '/api/tracks/7/like', headers: as(31) });
        return r.statusCode === 200 ? r : undefined;
      },
      { message: 'published track not visible' },
    );
    expect(liked.json().likeCount).toBe(1);

    // A later change keeps the counts social owns; the same event twice is applied once.
    await publish(createEnvelope(TrackChanged, snapshot({ state: 'FINISHED', durationSeconds: 200, title: 'Night Drive (edit)' })));
    await waitFor(async () => (await h.app.infra.prisma.trackRef.findUnique({ where: { trackId: 7 } }))?.title === 'Night Drive (edit)');
    const row = await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: 7 } });
    expect(row).toMatchObject({ likeCount: 1, durationSeconds: 200, state: 'FINISHED' });

    await publish(createEnvelope(TrackDeleted, { trackId: 7, artistId: 30, byAdmin: false }));
    await waitFor(async () => (await h.app.infra.prisma.trackRef.findUnique({ where: { trackId: 7 } }))?.isDeleted === true);
    expect((await h.app.inject({ method: 'GET', url: '/api/users/tracks/7/like' })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: '/api/users/fan/liked-tracks' })).json().totalElements).toBe(0);
  });

  it('copies track counts of artists and playlists', async () => {
    await publish(createEnvelope(ArtistTrackCountChanged, { userId: 30, trackCount: 4 }));
    await waitFor(async () => (await h.app.infra.prisma.userSummary.findUnique({ where: { userId: 30 } }))?.trackCount === 4);
    await publish(
      createEnvelope(PlaylistChanged, {
        playlistId: 5,
        ownerId: 30,
        title: 'Mix',
        playlistSlug: 'mix',
        isPrivate: false,
        coverArtUrl: null,
        createdAt: '2026-02-03T04:05:06.789Z',
      }),
    );
    const res = await waitFor(
      async () => {
        const r = await h.app.inject({ method: 'POST', url: '/api/playlists/5/like', headers: as(31) });
        return r.statusCode === 200 ? r : undefined;
      },
      { message: 'playlist not projected' },
    );
    expect(res.json().likeCount).toBe(1);
    await publish(createEnvelope(PlaylistDeleted, { playlistId: 5, ownerId: 30 }));
    await waitFor(async () => (await h.app.inject({ method: 'POST', url: '/api/playlists/5/like', headers: as(31) })).statusCode === 404);
  });
});

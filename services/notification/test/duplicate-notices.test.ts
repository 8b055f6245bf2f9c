import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { NotificationSchema, pageSchema } from '@msp/contracts';
import { createEnvelope, TrackChanged, TrackDuplicateFound, UserBlocked, UserRegistered, type EventEnvelope } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadNotificationConfig } from '../src/app.js';

/**
 * NOT-1 notices of duplicate detection (catalog.track.duplicate-found.v1, docs/fingerprints.md):
 * DUPLICATE_UPLOAD to an artist who re-uploaded their own audio; UPLOAD_HELD_BACK to an uploader
 * whose track repeats another artist's, and TRACK_COPY_DETECTED to that artist. Platform notices
 * (the recipient is the actor): no own-action, block or preference rule holds them back.
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NotificationPage = pageSchema(NotificationSchema.strict());

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const [ORIGINAL, COPIER] = [81, 82];
const [SOURCE, COPY, OWN] = [810, 820, 811];
const at = () => new Date().toISOString();

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const list = async (userId: number) =>
  NotificationPage.parse((await app.inject({ method: 'GET', url: '/api/notifications', headers: { 'x-user-id': String(userId) } })).json()).content;

const track = (trackId: number, artistId: number, title: string, heldBack = false) =>
  createEnvelope(TrackChanged, {
    trackId,
    artistId,
    title,
    trackSlug: title.toLowerCase().replace(/ /g, '-'),
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: 100,
    coverUrl: null,
    genre: 'Ambient',
    publishedAt: at(),
    createdAt: at(),
    heldBack,
  });

const found = (trackId: number, artistId: number, sameArtist: boolean) =>
  createEnvelope(TrackDuplicateFound, {
    trackId,
    artistId,
    title: 'copy',
    duplicateOfTrackId: SOURCE,
    duplicateArtistId: ORIGINAL,
    duplicateTitle: 'Glacier Hymn',
    sameArtist,
    heldBack: !sameArtist,
    evidence: { trackStartSeconds: 0, trackEndSeconds: 50, duplicateStartSeconds: 5, duplicateEndSeconds: 55, coverage: 0.95, score: 0.9 },
    at: at(),
  });

beforeAll(async () => {
  env = await startServiceTestEnv('notification_duplicates', migrations);
  app = await buildApp(loadNotificationConfig({ ...env.env }), { logger: false });
  await app.ready();
  for (const [id, name] of [
    [ORIGINAL, 'orla'],
    [COPIER, 'cosmo'],
  ] as const) {
    await publish(
      createEnvelope(UserRegistered, {
        userId: id,
        username: name,
        displayName: name,
        avatarUrl: null,
        tier: 'FREE',
        role: 'ARTIST',
        isPrivate: false,
        createdAt: at(),
      }),
    );
  }
  await publish(track(SOURCE, ORIGINAL, 'Glacier Hymn'));
  await publish(track(OWN, ORIGINAL, 'Glacier Hymn Again'));
  await publish(track(COPY, COPIER, 'Glacier Copy', true));
  // A block between the two artists does not stop platform notices.
  await publish(createEnvelope(UserBlocked, { blockerId: ORIGINAL, blockedId: COPIER, counts: [], at: at() }));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('NOT-1 DUPLICATE_UPLOAD, UPLOAD_HELD_BACK, TRACK_COPY_DETECTED', () => {
  it('tells an artist who uploaded their own audio again', async () => {
    await publish(found(OWN, ORIGINAL, true));
    await waitFor(async () => (await list(ORIGINAL)).some((n) => n.type === 'DUPLICATE_UPLOAD'), { message: 'DUPLICATE_UPLOAD' });
    const [notice] = (await list(ORIGINAL)).filter((n) => n.type === 'DUPLICATE_UPLOAD');
    expect(notice).toMatchObject({
      user: { id: ORIGINAL },
      resource: { resourceType: 'TRACK', resourceId: OWN },
      targetTitle: 'Glacier Hymn Again',
      isRead: false,
    });
  });

  it("tells both artists when a track repeats another artist's", async () => {
    await publish(found(COPY, COPIER, false));
    await waitFor(async () => (await list(COPIER)).some((n) => n.type === 'UPLOAD_HELD_BACK'), { message: 'UPLOAD_HELD_BACK' });
    await waitFor(async () => (await list(ORIGINAL)).some((n) => n.type === 'TRACK_COPY_DETECTED'), { message: 'TRACK_COPY_DETECTED' });
    expect((await list(COPIER)).find((n) => n.type === 'UPLOAD_HELD_BACK')).toMatchObject({
      user: { id: COPIER },
      resource: { resourceType: 'TRACK', resourceId: COPY },
      targetTitle: 'Glacier Copy',
    });
    expect((await list(ORIGINAL)).find((n) => n.type === 'TRACK_COPY_DETECTED')).toMatchObject({
      user: { id: ORIGINAL },
      resource: { resourceType: 'TRACK', resourceId: SOURCE },
      targetTitle: 'Glacier Hymn',
    });
  });
});

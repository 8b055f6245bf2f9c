import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { CopyrightHoldDismissed, createEnvelope, TrackChanged, TrackDuplicateDetected, TrackDuplicateFound, UserRegistered } from '@msp/events';
import { INTERNAL_ROUTES } from '@msp/contracts';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

/**
 * Duplicate detection's consequences in catalog (docs/fingerprints.md): media-processing's
 * TrackDuplicateDetected holds back a copy of another artist's track (out of every public list,
 * search, trending, stations; its artist and admins still see it) and sets SND-1's `duplicateOf`
 * for the same artist's copy; social's CopyrightHoldDismissed releases the held track.
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const USERS = { original: 1201, copier: 1202, listener: 1203, admin: 1204 } as const;
const as = (userId: number, role = 'LISTENER') => ({ 'x-user-id': String(userId), 'x-user-role': role, 'x-username': `u${userId}` });
const ADMIN = as(USERS.admin, 'ADMIN');
const LISTENER = as(USERS.listener);
const COPIER = as(USERS.copier, 'ARTIST');
const ORIGINAL = as(USERS.original, 'ARTIST');

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

interface Row {
  id: number;
  uploadId: string;
}

async function track(artistId: number, title: string): Promise<Row> {
  const genre = 'Ambient';
  return app.infra.prisma.track.create({
    data: {
      artistId,
      title,
      trackSlug: `d-${randomUUID().slice(0, 8)}`,
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
      trendingScore: 10,
      progressiveKey: 'tracks/x/full.m4a',
      waveformKey: `public/${randomUUID()}/waveform.json`,
    },
    select: { id: true, uploadId: true },
  });
}

const detected = (copy: Row, original: Row, attempt = 1) =>
  createEnvelope(TrackDuplicateDetected, {
    trackId: copy.id,
    uploadId: copy.uploadId,
    attempt,
    duplicateOfTrackId: original.id,
    trackStartSeconds: 0,
    trackEndSeconds: 54.3,
    duplicateStartSeconds: 5.1,
    duplicateEndSeconds: 59.4,
    coverage: 0.97,
    score: 0.91,
  });

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
const ids = (res: { json(): unknown }) => (res.json() as { content: Array<{ id: number }> }).content.map((c) => c.id);

async function outbox<T>(type: string): Promise<T[]> {
  const rows = await app.infra.prisma.$queryRawUnsafe<Array<{ payload: { data: T } }>>(
    'SELECT payload FROM outbox_event WHERE type = $1 ORDER BY created_at',
    type,
  );
  return rows.map((r) => r.payload.data);
}

const heldBack = async (id: number) => (await app.infra.prisma.track.findUniqueOrThrow({ where: { id }, select: { heldBack: true } })).heldBack;

const t = {} as { original: Row; copy: Row; own: Row; stale: Row };

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_duplicates', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: 'http://127.0.0.1:1' }), { logger: false });
  await app.ready();
  await register(USERS.original, 'orla');
  await register(USERS.copier, 'cosmo');
  await register(USERS.listener, 'lina');
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 3, { message: 'projection' });
  t.original = await track(USERS.original, 'Glacier Hymn');
  t.copy = await track(USERS.copier, 'Glacier Hymn Copy');
  t.own = await track(USERS.original, 'Glacier Hymn Remaster');
  t.stale = await track(USERS.copier, 'Glacier Stale');
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** What a listener and an anonymous caller see of the copy, everywhere it could be listed. */
async function publicView(trackId: number) {
  const [byId, anonymous, userTracks, search, trending, internal] = await Promise.all([
    get(`/api/tracks/${trackId}`, LISTENER),
    get(`/api/tracks/${trackId}`),
    get(`/api/users/${USERS.copier}/tracks`, LISTENER),
    get(`/api/search?q=${encodeURIComponent('glacier')}&type=TRACK`, LISTENER),
    get('/api/explore/trending', LISTENER),
    app.inject({ method: 'POST', url: INTERNAL_ROUTES.tracks, payload: { viewerId: USERS.listener, viewerRole: 'LISTENER', trackIds: [trackId] } }),
  ]);
  return {
    byId: byId.statusCode,
    anonymous: anonymous.statusCode,
    inUserTracks: ids(userTracks).includes(trackId),
    inSearch: ids(search).includes(trackId),
    inTrending: ids(trending).includes(trackId),
    internal: (internal.json() as { tracks: Array<{ id: number }> }).tracks.map((x) => x.id),
  };
}

describe('TRK-6, USR-18, DSC-2, DSC-3 duplicate of another artist (media-processing.track.duplicate-detected.v1)', () => {
  it('before detection the copy is listed like any public track', async () => {
    expect(await publicView(t.copy.id)).toEqual({ byId: 200, anonymous: 200, inUserTracks: true, inSearch: true, inTrending: true, internal: [t.copy.id] });
  });

  it('holds the copy back from every public list; its artist and admins still see it', async () => {
    await publish(detected(t.copy, t.original));
    await waitFor(() => heldBack(t.copy.id), { message: 'held back' });
    expect(await publicView(t.copy.id)).toEqual({ byId: 404, anonymous: 404, inUserTracks: false, inSearch: false, inTrending: false, internal: [] });
    expect((await get(`/api/tracks/${t.copy.id}`, COPIER)).statusCode).toBe(200);
    expect((await get(`/api/tracks/${t.copy.id}`, ADMIN)).statusCode).toBe(200);
    expect(ids(await get(`/api/users/${USERS.copier}/tracks`, COPIER))).toContain(t.copy.id);
    // The original stays where it was.
    expect((await get(`/api/tracks/${t.original.id}`, LISTENER)).statusCode).toBe(200);
    // SND-1 names a duplicate only of the artist's own tracks.
    expect(((await get(`/api/tracks/${t.copy.id}/loudness`, COPIER)).json() as { duplicateOf: number | null }).duplicateOf).toBeNull();
  });

  it('publishes the hold on the track event and TrackDuplicateFound with the evidence', async () => {
    const changed = (await outbox<{ trackId: number; heldBack?: boolean }>(TrackChanged.type)).filter((e) => e.trackId === t.copy.id);
    expect(changed.at(-1)?.heldBack).toBe(true);
    const found = (await outbox<Record<string, unknown>>(TrackDuplicateFound.type)).filter((e) => e.trackId === t.copy.id);
    expect(found).toEqual([
      expect.objectContaining({
        artistId: USERS.copier,
        duplicateOfTrackId: t.original.id,
        duplicateArtistId: USERS.original,
        sameArtist: false,
        heldBack: true,
        evidence: { trackStartSeconds: 0, trackEndSeconds: 54.3, duplicateStartSeconds: 5.1, duplicateEndSeconds: 59.4, coverage: 0.97, score: 0.91 },
      }),
    ]);
    // R9: a held-back track does not count among the artist's public tracks.
    expect((await app.infra.prisma.userSummary.findUniqueOrThrow({ where: { userId: USERS.copier } })).trackCount).toBe(1);
  });

  it('social.copyright-hold.dismissed.v1 releases it', async () => {
    await publish(createEnvelope(CopyrightHoldDismissed, { reportId: 1, trackId: t.copy.id, at: new Date().toISOString() }));
    await waitFor(async () => !(await heldBack(t.copy.id)), { message: 'released' });
    expect(await publicView(t.copy.id)).toEqual({ byId: 200, anonymous: 200, inUserTracks: true, inSearch: true, inTrending: true, internal: [t.copy.id] });
    const changed = (await outbox<{ trackId: number; heldBack?: boolean }>(TrackChanged.type)).filter((e) => e.trackId === t.copy.id);
    expect(changed.at(-1)?.heldBack).toBe(false);
  });

  it('ignores an event of an older upload attempt', async () => {
    await app.infra.prisma.track.update({ where: { id: t.stale.id }, data: { processingAttempt: 2 } });
    await publish(detected(t.stale, t.original, 1));
    await publish(detected(t.own, t.original));
    // The later event is handled after the stale one (one consumer, stream order).
    await waitFor(async () => (await outbox<{ trackId: number }>(TrackDuplicateFound.type)).some((e) => e.trackId === t.own.id), { message: 'own handled' });
    expect(await heldBack(t.stale.id)).toBe(false);
  });
});

describe('SND-1 duplicate of the same artist', () => {
  it('sets duplicateOf and holds nothing back', async () => {
    // Published in the previous test: t.own repeats t.original, both by the same artist.
    await waitFor(async () => (await app.infra.prisma.trackSoundReport.findUnique({ where: { trackId: t.own.id } }))?.duplicateOf === t.original.id, {
      message: 'duplicateOf',
    });
    expect(await heldBack(t.own.id)).toBe(false);
    const report = await get(`/api/tracks/${t.own.id}/loudness`, ORIGINAL);
    expect(report.statusCode).toBe(200);
    expect((report.json() as { duplicateOf: number | null }).duplicateOf).toBe(t.original.id);
    const found = (await outbox<Record<string, unknown>>(TrackDuplicateFound.type)).filter((e) => e.trackId === t.own.id);
    expect(found).toEqual([expect.objectContaining({ sameArtist: true, heldBack: false, duplicateArtistId: USERS.original })]);
    expect((await get(`/api/tracks/${t.own.id}`, LISTENER)).statusCode).toBe(200);
  });
});

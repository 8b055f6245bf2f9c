import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ErrorResponseSchema, pageSchema, TrackSchema, type Track } from '@msp/contracts';
import { createEnvelope, UserRegistered, type EventEnvelope } from '@msp/events';
import { Redis } from 'ioredis';
import { startServiceTestEnv, testInfra, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const UPLOAD_WAIT_MS = 1500;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
/**
 * Stand-in for media-processing's internal probe: this file tests catalog's side of TRK-1 (waiting on the
 * track's state); the worker itself is covered by tests/e2e/test/tracks.test.ts. The state changes the
 * worker's events would cause are written to the row directly.
 */
let probe: FastifyInstance;

const ARTIST = 901;
const FREE = 902;
const PRO = 903;
const OTHER = 904;
const ADMIN = 999;

const as = (userId: number, role = 'ARTIST') => ({ 'x-user-id': String(userId), 'x-user-role': role, 'x-username': `u${userId}` });

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

function registered(userId: number, username: string, tier: 'FREE' | 'PRO') {
  return createEnvelope(UserRegistered, {
    userId,
    username,
    displayName: username,
    avatarUrl: null,
    tier,
    role: 'ARTIST',
    isPrivate: false,
    createdAt: new Date().toISOString(),
  });
}

type TrackFields = Partial<{
  state: 'UPLOADING' | 'PROCESSING' | 'FINISHED' | 'FAILED';
  isPrivate: boolean;
  access: 'PLAYABLE' | 'PREVIEW' | 'BLOCKED';
  publishedAt: Date | null;
  coverKey: string | null;
  originalKey: string | null;
  originalFormat: string | null;
  createdAt: Date;
}>;

/** The row of a FINISHED public track with rendition keys, as media-processing leaves it; `fields` override. */
function trackData(artistId: number, fields: TrackFields = {}) {
  const slug = `t-${randomUUID().slice(0, 8)}`;
  return {
    artistId,
    title: `Title ${slug}`,
    trackSlug: slug,
    genre: 'Techno',
    genreKey: 'techno',
    releaseDate: new Date('2026-01-15T00:00:00.000Z'),
    secretToken: randomBytes(24).toString('base64url'),
    uploadId: randomUUID(),
    state: 'FINISHED' as const,
    durationSeconds: 120,
    publishedAt: fields.isPrivate || (fields.state && fields.state !== 'FINISHED') ? null : new Date(),
    progressiveKey: `tracks/${slug}/audio.mp3`,
    hlsPlaylistKey: `tracks/${slug}/hls/index.m3u8`,
    hlsPrefix: `tracks/${slug}/hls/`,
    previewKey: `tracks/${slug}/preview.mp3`,
    waveformKey: `tracks/${slug}/waveform.png`,
    waveformJsonKey: `tracks/${slug}/waveform.json`,
    ...fields,
  };
}

async function insertTrack(artistId: number, fields: TrackFields = {}) {
  return app.infra.prisma.track.create({ data: trackData(artistId, fields) });
}

/** A RIFF/WAVE file: 0.1 s of 8 kHz mono silence. */
function wav(): Buffer {
  const data = Buffer.alloc(1600);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

async function multipart(form: FormData) {
  const res = new Response(form);
  return { payload: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? '' };
}

async function uploadV1(title: string) {
  const form = new FormData();
  form.append('title', title);
  form.append('genre', 'Ambient');
  form.append('audioFile', new Blob([wav()]), 'song.wav');
  const { payload, contentType } = await multipart(form);
  return app.inject({ method: 'POST', url: '/api/tracks/upload', headers: { ...as(ARTIST), 'content-type': contentType }, payload });
}

async function uploadedRow(title: string) {
  return waitFor(() => app.infra.prisma.track.findFirst({ where: { title } }).then((r) => r ?? undefined), { timeoutMs: 5000, message: `upload ${title}` });
}

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

function expectError(res: { statusCode: number; json: () => unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(ErrorResponseSchema.parse(res.json()).code).toBe(code);
}

beforeAll(async () => {
  probe = Fastify();
  probe.post('/internal/media/probe', async () => ({
    readable: true,
    formatName: 'wav',
    durationSeconds: 0.1,
    audioStreams: [{ codecName: 'pcm_s16le', packets: 10 }],
    videoStreams: 0,
  }));
  const probeUrl = await probe.listen({ port: 0, host: '127.0.0.1' });
  env = await startServiceTestEnv('catalog_tracks_ops', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, MEDIA_PROCESSING_URL: probeUrl, UPLOAD_WAIT_MS: String(UPLOAD_WAIT_MS) }), { logger: false });
  await app.ready();
  for (const [id, name, tier] of [
    [ARTIST, 'artie', 'PRO'],
    [FREE, 'freddy', 'FREE'],
    [PRO, 'prue', 'PRO'],
    [OTHER, 'otto', 'FREE'],
  ] as const) {
    await publish(registered(id, name, tier));
  }
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 4 || undefined, { message: 'projection' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  await probe?.close();
});

describe('TRK-1 upload a new track (waits for processing)', () => {
  it('answers 201 with Track (full) and durationSeconds once processing finishes within the wait', async () => {
    const pending = uploadV1('Wait Finished');
    const row = await uploadedRow('Wait Finished');
    await app.infra.prisma.track.update({
      where: { id: row.id },
      data: { state: 'FINISHED', durationSeconds: 42, progressiveKey: `tracks/${row.id}/audio.mp3`, publishedAt: new Date() },
    });
    const res = await pending;
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as Track & { durationSeconds: number };
    expect(() => TrackSchema.parse(body)).not.toThrow();
    expect(body).toMatchObject({ id: row.id, title: 'Wait Finished', state: 'FINISHED', durationSeconds: 42, trackDurationSeconds: 42 });
    expect(body.secretToken).toBe(row.secretToken);
  });

  it('answers 202 with the PROCESSING track when processing outlasts the configured wait', async () => {
    const started = Date.now();
    const pending = uploadV1('Wait Slow');
    const row = await uploadedRow('Wait Slow');
    await app.infra.prisma.track.update({ where: { id: row.id }, data: { state: 'PROCESSING' } });
    const res = await pending;
    expect(res.statusCode, res.body).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(UPLOAD_WAIT_MS - 100);
    expect(res.json()).toMatchObject({ id: row.id, state: 'PROCESSING', durationSeconds: null, trackUrl: null });
  });

  it('answers 422 TRACK_PROCESSING_FAILED when processing fails, keeping the track for TRK-4', async () => {
    const pending = uploadV1('Wait Failed');
    const row = await uploadedRow('Wait Failed');
    await app.infra.prisma.track.update({ where: { id: row.id }, data: { state: 'FAILED', errorMessage: 'Audio could not be decoded' } });
    const res = await pending;
    expectError(res, 422, 'TRACK_PROCESSING_FAILED');
    expect((res.json() as { message: string }).message).toContain('could not be decoded');
    const own = await get(`/api/users/me/tracks/${row.id}`, as(ARTIST));
    expect(own.json()).toMatchObject({ id: row.id, state: 'FAILED' });
  });
});

describe('TRK-7 track metadata (user)', () => {
  it('answers the own track in any state and privacy, 404 for others and deleted tracks, 401 anonymous', async () => {
    for (const fields of [{ state: 'PROCESSING' as const }, { state: 'FAILED' as const }, { isPrivate: true }, {}]) {
      const row = await insertTrack(ARTIST, fields);
      const res = await get(`/api/users/me/tracks/${row.id}`, as(ARTIST));
      expect(res.statusCode).toBe(200);
      expect(TrackSchema.parse(res.json())).toMatchObject({ id: row.id, state: row.state, isPrivate: row.isPrivate, secretToken: row.secretToken });
      expectError(await get(`/api/users/me/tracks/${row.id}`, as(OTHER)), 404, 'TRACK_NOT_FOUND');
    }
    const gone = await insertTrack(ARTIST, { state: 'FINISHED' });
    await app.infra.prisma.track.update({ where: { id: gone.id }, data: { deletedAt: new Date() } });
    expectError(await get(`/api/users/me/tracks/${gone.id}`, as(ARTIST)), 404, 'TRACK_NOT_FOUND');
    expectError(await get(`/api/users/me/tracks/${gone.id}`), 401, 'UNAUTHORIZED');
    expectError(await get('/api/users/me/tracks/abc', as(ARTIST)), 400, 'VALIDATION_FAILED');
  });
});

describe('TRK-8 update track metadata', () => {
  it('updates with JSON, normalises tags and keeps unspecified fields', async () => {
    const row = await insertTrack(ARTIST);
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/tracks/${row.id}`,
      headers: as(ARTIST),
      payload: { title: 'Renamed ✓', tags: ['Dub', 'dub', ' Deep '], description: 'About <b>it</b>', releaseDate: '2025-12-31', access: 'PREVIEW' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(TrackSchema.parse(res.json())).toMatchObject({
      id: row.id,
      title: 'Renamed ✓',
      tags: ['dub', 'deep'],
      description: 'About <b>it</b>',
      releaseDate: '2025-12-31',
      access: 'PREVIEW',
      genre: 'Techno',
    });
    expect(await app.infra.prisma.track.findUnique({ where: { id: row.id }, select: { title: true, trackSlug: true } })).toEqual({
      title: 'Renamed ✓',
      trackSlug: row.trackSlug,
    });
  });

  it('answers 400 with the failing fields and stores nothing', async () => {
    const row = await insertTrack(ARTIST);
    const cases: Array<[unknown, string]> = [
      [{ title: '' }, 'title'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ genre: 123 }, 'genre'],
      [{ isPrivate: 'yes' }, 'isPrivate'],
      [{ access: 'SOMETIMES' }, 'access'],
      [{ releaseDate: '2026-13-45' }, 'releaseDate'],
      [{ description: 'd'.repeat(5001) }, 'description'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    ];
    for (const [payload, field] of cases) {
      const res = await app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: as(ARTIST), payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(
        ErrorResponseSchema.parse(res.json()).errors?.map((e) => e.field),
        JSON.stringify(payload),
      ).toContain(field);
    }
    const malformed = await app.inject({
      method: 'PATCH',
      url: `/api/tracks/${row.id}`,
      headers: { ...as(ARTIST), 'content-type': 'application/json' },
      payload: '{"title":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(await app.infra.prisma.track.findUnique({ where: { id: row.id }, select: { title: true } })).toEqual({ title: row.title });
  });

  it('is owner only: 403 FORBIDDEN for another caller who sees the track, 404 when they cannot, 401 anonymous', async () => {
    const visible = await insertTrack(ARTIST);
    const hidden = await insertTrack(ARTIST, { isPrivate: true });
    const patch = (id: number, headers: Record<string, string>) =>
      app.inject({ method: 'PATCH', url: `/api/tracks/${id}`, headers, payload: { title: 'Hijack' } });
    expectError(await patch(visible.id, as(OTHER)), 403, 'FORBIDDEN');
    expectError(await patch(hidden.id, as(OTHER)), 404, 'TRACK_NOT_FOUND');
    expectError(await patch(visible.id, {}), 401, 'UNAUTHORIZED');
    expect(await app.infra.prisma.track.count({ where: { title: 'Hijack' } })).toBe(0);
  });

  it('takes multipart text fields with a cover, resized to a 500×500 JPEG, and replaces the old cover', async () => {
    const row = await insertTrack(ARTIST);
    const upload = async () => {
      const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#c03' } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.append('title', 'With Cover');
      form.append('tags', '["Night","night"]');
      form.append('isPrivate', 'false');
      form.append('coverImage', new Blob([png], { type: 'image/png' }), 'cover.png');
      const { payload, contentType } = await multipart(form);
      return app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: { ...as(ARTIST), 'content-type': contentType }, payload });
    };
    const res = await upload();
    expect(res.statusCode, res.body).toBe(200);
    const track = TrackSchema.parse(res.json());
    expect(track).toMatchObject({ title: 'With Cover', tags: ['night'], isPrivate: false });
    expect(track.coverUrl).toEqual(expect.any(String));
    const first = (await app.infra.prisma.track.findUniqueOrThrow({ where: { id: row.id } })).coverKey!;
    const stored = await app.infra.storage.stat(first);
    expect(stored).not.toBeNull();
    const bytes = Buffer.concat(await (await app.infra.storage.get(first)).toArray());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'jpeg', width: 500, height: 500 });

    expect((await upload()).statusCode).toBe(200);
    const second = (await app.infra.prisma.track.findUniqueOrThrow({ where: { id: row.id } })).coverKey!;
    expect(second).not.toBe(first);
    expect(await app.infra.storage.stat(first)).toBeNull();
  });

  it('refuses a cover that is not an image with UNSUPPORTED_IMAGE_FORMAT and keeps the track unchanged', async () => {
    const row = await insertTrack(ARTIST);
    const form = new FormData();
    form.append('title', 'Not Stored');
    form.append('coverImage', new Blob([Buffer.from('<script>alert(1)</script>')]), 'cover.png');
    const { payload, contentType } = await multipart(form);
    const res = await app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: { ...as(ARTIST), 'content-type': contentType }, payload });
    expect(ErrorResponseSchema.parse(res.json()).code).toBe('UNSUPPORTED_IMAGE_FORMAT');
    expect(await app.infra.prisma.track.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ title: row.title, coverKey: null });
  });

  it('making a private FINISHED track public publishes it once (publishedAt, TrackPublished, trackCount)', async () => {
    const row = await insertTrack(ARTIST, { isPrivate: true });
    const publishedEvents = () =>
      app.infra.prisma.outboxEvent.count({ where: { type: 'catalog.track.published.v1', payload: { path: ['data', 'trackId'], equals: row.id } } });
    expect(await publishedEvents()).toBe(0);
    const res = await app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: as(ARTIST), payload: { isPrivate: false } });
    expect(res.statusCode, res.body).toBe(200);
    const track = TrackSchema.parse(res.json());
    expect(track.isPrivate).toBe(false);
    expect(track.publishedAt).toEqual(expect.any(String));
    expect(await publishedEvents()).toBe(1);
    expect((await get(`/api/tracks/${row.id}`, as(OTHER))).statusCode).toBe(200);

    // Private again and public again: still published once, publishedAt unchanged.
    await app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: as(ARTIST), payload: { isPrivate: true } });
    expectError(await get(`/api/tracks/${row.id}`, as(OTHER)), 404, 'TRACK_NOT_FOUND');
    const again = await app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: as(ARTIST), payload: { isPrivate: false } });
    expect(again.json().publishedAt).toBe(track.publishedAt);
    expect(await publishedEvents()).toBe(1);
  });

  it('does not publish an unfinished track made public', async () => {
    const row = await insertTrack(ARTIST, { state: 'PROCESSING', isPrivate: true });
    const res = await app.inject({ method: 'PATCH', url: `/api/tracks/${row.id}`, headers: as(ARTIST), payload: { isPrivate: false } });
    expect(res.json()).toMatchObject({ isPrivate: false, publishedAt: null, state: 'PROCESSING' });
  });
});

describe('TRK-10 delete track cover', () => {
  it('removes the cover and its file with 204; owner only', async () => {
    const coverKey = `public/${randomUUID()}/cover.jpg`;
    await app.infra.storage.put(coverKey, Buffer.from('jpeg'), 'image/jpeg', 4);
    const row = await insertTrack(ARTIST, { coverKey });
    expectError(await app.inject({ method: 'DELETE', url: `/api/tracks/${row.id}/cover`, headers: as(OTHER) }), 403, 'FORBIDDEN');
    expectError(await app.inject({ method: 'DELETE', url: `/api/tracks/${row.id}/cover` }), 401, 'UNAUTHORIZED');
    expect(await app.infra.storage.stat(coverKey)).not.toBeNull();

    const res = await app.inject({ method: 'DELETE', url: `/api/tracks/${row.id}/cover`, headers: as(ARTIST) });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(`/api/tracks/${row.id}`, as(ARTIST))).json().coverUrl).toBeNull();
    expect(await app.infra.storage.stat(coverKey)).toBeNull();
    expect((await app.inject({ method: 'DELETE', url: `/api/tracks/${row.id}/cover`, headers: as(ARTIST) })).statusCode).toBe(204);
    expectError(await app.inject({ method: 'DELETE', url: '/api/tracks/987654/cover', headers: as(ARTIST) }), 404, 'TRACK_NOT_FOUND');
  });
});

describe('TRK-11 get secret token', () => {
  it('gives the owner the token; 403 for another caller, 404 when invisible, 401 anonymous', async () => {
    const row = await insertTrack(ARTIST);
    const res = await get(`/api/tracks/${row.id}/secret-token`, as(ARTIST));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ secretToken: row.secretToken });
    expectError(await get(`/api/tracks/${row.id}/secret-token`, as(OTHER)), 403, 'FORBIDDEN');
    const hidden = await insertTrack(ARTIST, { isPrivate: true });
    expectError(await get(`/api/tracks/${hidden.id}/secret-token`, as(OTHER)), 404, 'TRACK_NOT_FOUND');
    expectError(await get(`/api/tracks/${row.id}/secret-token`), 401, 'UNAUTHORIZED');
  });
});

describe('TRK-14 resolve track slug to id', () => {
  it('resolves a visible track and answers 404 for unknown, private (to others) and deleted slugs', async () => {
    const row = await insertTrack(ARTIST);
    const expected = { type: 'TRACK', id: row.id, resourceType: 'TRACK', resourceId: row.id };
    expect((await get(`/api/tracks/resolve/${row.trackSlug}`)).json()).toEqual(expected);
    expect((await get(`/api/tracks/resolve/${row.trackSlug}?track-slug=ignored`)).json()).toEqual(expected);
    expectError(await get('/api/tracks/resolve/no-such-slug'), 404, 'TRACK_NOT_FOUND');
    const hidden = await insertTrack(ARTIST, { isPrivate: true });
    expectError(await get(`/api/tracks/resolve/${hidden.trackSlug}`), 404, 'TRACK_NOT_FOUND');
    expect((await get(`/api/tracks/resolve/${hidden.trackSlug}`, as(ARTIST))).json()).toMatchObject({ id: hidden.id });
    await app.infra.prisma.track.update({ where: { id: row.id }, data: { deletedAt: new Date() } });
    expectError(await get(`/api/tracks/resolve/${row.trackSlug}`), 404, 'TRACK_NOT_FOUND');
  });
});

describe('TRK-18 mark a track as completely listened to', () => {
  it('counts one completion per listener within 30 s, anonymous listeners by address + User-Agent', async () => {
    // Track ids restart at 1 in every test database: the file's own Redis key prefix
    // (startServiceTestEnv) keeps another file's or run's dedup keys away from this id.
    const row = await insertTrack(ARTIST);
    const complete = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: `/api/tracks/${row.id}/complete`,
        headers,
        payload: { trackId: row.id, deviceInfo: { deviceType: 'WEB', fingerPrint: 'fp-1', deviceName: 'Browser' } },
      });
    const first = await complete(as(OTHER));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ message: expect.any(String) });
    expect((await complete(as(OTHER))).statusCode).toBe(200);
    await complete({ 'user-agent': 'agent-a' });
    await complete({ 'user-agent': 'agent-a' });
    await complete({ 'user-agent': 'agent-b' });
    // Counted completions wait in track_play_deltas until they are folded into the track (docs/insights.md).
    const [counts] = await app.infra.prisma.$queryRaw<{ completedPlayCount: number; playCount: number }[]>`
      SELECT (t.completed_play_count + COALESCE(d.completions, 0))::int AS "completedPlayCount",
             (t.play_count + COALESCE(d.plays, 0))::int AS "playCount"
      FROM tracks t LEFT JOIN track_play_deltas d ON d.track_id = t.id WHERE t.id = ${row.id}`;
    expect(counts).toEqual({ completedPlayCount: 3, playCount: 0 });
    expect((await get(`/api/tracks/${row.id}`)).json().completedPlayCount).toBe(3);
    // The three dedup keys (one listener, two anonymous ones) live under REDIS_KEY_PREFIX.
    const raw = new Redis(testInfra().redisUrl);
    try {
      expect(await raw.keys(`${env.redisKeyPrefix}catalog:complete:${row.id}:*`)).toHaveLength(3);
    } finally {
      raw.disconnect();
    }
  });

  it('answers 403 TRACK_NOT_PLAYABLE for BLOCKED, 404 for invisible tracks, 400 for a bad body', async () => {
    const blocked = await insertTrack(ARTIST, { access: 'BLOCKED' });
    expectError(await app.inject({ method: 'POST', url: `/api/tracks/${blocked.id}/complete`, headers: as(OTHER) }), 403, 'TRACK_NOT_PLAYABLE');
    const hidden = await insertTrack(ARTIST, { isPrivate: true });
    expectError(await app.inject({ method: 'POST', url: `/api/tracks/${hidden.id}/complete`, headers: as(OTHER) }), 404, 'TRACK_NOT_FOUND');
    const viaToken = await app.inject({
      method: 'POST',
      url: `/api/tracks/${hidden.id}/complete`,
      headers: as(OTHER),
      payload: { secretToken: hidden.secretToken },
    });
    expect(viaToken.statusCode).toBe(200);
    const bad = await app.inject({ method: 'POST', url: `/api/tracks/${hidden.id}/complete`, headers: as(OTHER), payload: { trackId: 'x' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('TRK-19 offline download for Pro users', () => {
  const audio = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
  let trackId: number;
  let slug: string;

  beforeAll(async () => {
    const originalKey = `uploads/${randomUUID()}/original`;
    await app.infra.storage.put(originalKey, audio, 'application/octet-stream', audio.length);
    const row = await insertTrack(ARTIST, { originalKey, originalFormat: 'mp3' });
    trackId = row.id;
    slug = row.trackSlug;
  });

  it('streams the original to a PRO user with Content-Disposition, and a Range as 206', async () => {
    const res = await get(`/api/tracks/${trackId}/download`, as(PRO));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${slug}.mp3"`);
    expect(res.headers['content-type']).toMatch(/^audio\/mpeg/);
    expect(res.rawPayload.equals(audio)).toBe(true);

    const part = await get(`/api/tracks/${trackId}/download`, { ...as(PRO), range: 'bytes=100-199' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${audio.length}`);
    expect(part.headers['content-disposition']).toBe(`attachment; filename="${slug}.mp3"`);
    expect(part.rawPayload.equals(audio.subarray(100, 200))).toBe(true);
  });

  it('answers 403 PRO_REQUIRED for FREE (server-side tier, not the header), 401 anonymous, 404 invisible', async () => {
    expectError(await get(`/api/tracks/${trackId}/download`, { ...as(FREE), 'x-user-tier': 'PRO' }), 403, 'PRO_REQUIRED');
    expectError(await get(`/api/tracks/${trackId}/download`), 401, 'UNAUTHORIZED');
    const hidden = await insertTrack(ARTIST, { isPrivate: true });
    expectError(await get(`/api/tracks/${hidden.id}/download`, as(PRO)), 404, 'TRACK_NOT_FOUND');
  });

  it('answers 409 for a track that is not FINISHED (its owner, PRO) and 403 TRACK_NOT_PLAYABLE for PREVIEW to others', async () => {
    const processing = await insertTrack(ARTIST, { state: 'PROCESSING', originalKey: 'uploads/x/original', originalFormat: 'wav' });
    const res = await get(`/api/tracks/${processing.id}/download`, as(ARTIST));
    expect(res.statusCode).toBe(409);
    expect(ErrorResponseSchema.parse(res.json()).status).toBe(409);
    const preview = await insertTrack(ARTIST, { access: 'PREVIEW', originalKey: 'uploads/x/original', originalFormat: 'wav' });
    expectError(await get(`/api/tracks/${preview.id}/download`, as(PRO)), 403, 'TRACK_NOT_PLAYABLE');
  });
});

describe('TRK-22 / TRK-23 / USR-18 tracks of a user', () => {
  const OWNER = 905;
  const ids: Record<string, number> = {};
  const at = (s: number) => new Date(Date.UTC(2026, 1, 1, 0, 0, s));

  beforeAll(async () => {
    await publish(registered(OWNER, 'lister', 'FREE'));
    await waitFor(async () => (await app.infra.prisma.userSummary.findUnique({ where: { userId: OWNER } })) ?? undefined, { message: 'projection' });
    ids.public1 = (await insertTrack(OWNER, { createdAt: at(1) })).id;
    ids.private = (await insertTrack(OWNER, { isPrivate: true, createdAt: at(2) })).id;
    ids.processing = (await insertTrack(OWNER, { state: 'PROCESSING', createdAt: at(3) })).id;
    ids.public2 = (await insertTrack(OWNER, { createdAt: at(4) })).id;
    const deleted = await insertTrack(OWNER, { createdAt: at(5) });
    await app.infra.prisma.track.update({ where: { id: deleted.id }, data: { deletedAt: new Date() } });
  });

  const urls = () => [`/api/users/username/lister/tracks`, `/api/tracks/user/${OWNER}`, `/api/users/${OWNER}/tracks`, '/api/users/Lister/tracks'];

  it('lists the public FINISHED tracks newest first to others and anonymous callers', async () => {
    for (const url of urls()) {
      for (const headers of [{}, as(OTHER)]) {
        const res = await get(url, headers);
        expect(res.statusCode, url).toBe(200);
        const page = pageSchema(TrackSchema).parse(res.json());
        expect(
          page.content.map((t) => t.id),
          url,
        ).toEqual([ids.public2, ids.public1]);
        expect(page.totalElements).toBe(2);
        for (const t of page.content) expect(t.secretToken, url).toBeNull();
      }
    }
  });

  it('shows the owner (and admins) private and unfinished tracks too, and pages', async () => {
    const all = [ids.public2, ids.processing, ids.private, ids.public1];
    for (const url of urls()) {
      for (const headers of [as(OWNER), as(ADMIN, 'ADMIN')]) {
        const res = await get(url, headers);
        expect(
          res.json().content.map((t: Track) => t.id),
          url,
        ).toEqual(all);
      }
      const second = await get(`${url}?page=1&size=3`, as(OWNER));
      expect({ ...second.json(), content: second.json().content.map((t: Track) => t.id) }).toEqual({
        content: [ids.public1],
        pageNumber: 1,
        pageSize: 3,
        totalElements: 4,
        totalPages: 2,
        isLast: true,
      });
    }
  });

  it('pages deep into a big artist from cached anchors exactly as an offset walk does', async () => {
    const BIG = 906;
    await publish(registered(BIG, 'big-lister', 'PRO'));
    await waitFor(async () => (await app.infra.prisma.userSummary.findUnique({ where: { userId: BIG } })) ?? undefined, { message: 'projection' });
    // 263 public tracks, three to a createdAt, so the id decides their order within one (the sort key is both).
    await app.infra.prisma.track.createMany({
      data: Array.from({ length: 263 }, (_, i) => trackData(BIG, { createdAt: new Date(Date.UTC(2026, 2, 1, 0, 0, 0, Math.floor(i / 3) * 1000)) })),
    });
    const expected = (
      await app.infra.prisma.track.findMany({ where: { artistId: BIG }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true } })
    ).map((t) => t.id);
    const walk = async (size: number) => {
      const seen: number[] = [];
      for (let page = 0; ; page++) {
        const body = (await get(`/api/users/${BIG}/tracks?page=${page}&size=${size}`)).json();
        seen.push(...body.content.map((t: Track) => t.id));
        expect(body.totalElements).toBe(263);
        if (body.isLast) return seen;
      }
    };
    expect(await walk(20)).toEqual(expected);
    expect(await walk(7)).toEqual(expected);
    const deep = (await get(`/api/users/${BIG}/tracks?page=2&size=100`)).json();
    expect(deep.content.map((t: Track) => t.id)).toEqual(expected.slice(200));
    // The track an anchor points at is deleted: the deep page is still full and leaves it out.
    await app.infra.prisma.track.update({ where: { id: expected[200]! }, data: { deletedAt: new Date() } });
    const after = (await get(`/api/users/${BIG}/tracks?page=10&size=20`)).json();
    expect(after.content).toHaveLength(20);
    expect(after.content.map((t: Track) => t.id)).not.toContain(expected[200]);
  });

  it('answers 404 USER_NOT_FOUND for unknown users and 400 for bad parameters', async () => {
    for (const url of ['/api/users/username/nobody-here/tracks', '/api/tracks/user/777777', '/api/users/777777/tracks', '/api/users/nobody-here/tracks']) {
      expectError(await get(url), 404, 'USER_NOT_FOUND');
    }
    for (const url of [`/api/tracks/user/abc`, `/api/users/${OWNER}/tracks?size=0`, `/api/users/username/lister/tracks?page=-1`]) {
      expectError(await get(url), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('MOD-11 admin delete track', () => {
  it('removes the track for everyone, including its artist, and deletes its files', async () => {
    const originalKey = `uploads/${randomUUID()}/original`;
    const coverKey = `public/${randomUUID()}/cover.jpg`;
    const row = await insertTrack(ARTIST, { originalKey, originalFormat: 'wav', coverKey });
    const rendition = `tracks/${row.id}/hls/seg-0.ts`;
    for (const key of [originalKey, coverKey, rendition]) await app.infra.storage.put(key, Buffer.from('x'), 'application/octet-stream', 1);

    expectError(await app.inject({ method: 'DELETE', url: `/api/admin/tracks/${row.id}`, headers: as(ARTIST) }), 403, 'FORBIDDEN');
    expectError(await app.inject({ method: 'DELETE', url: `/api/admin/tracks/${row.id}` }), 401, 'UNAUTHORIZED');

    const res = await app.inject({
      method: 'DELETE',
      url: `/api/admin/tracks/${row.id}?reason=${encodeURIComponent('copyright <script>')}`,
      headers: as(ADMIN, 'ADMIN'),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String) });

    for (const headers of [{}, as(OTHER), as(ARTIST), as(ADMIN, 'ADMIN')]) {
      expectError(await get(`/api/tracks/${row.id}`, headers), 404, 'TRACK_NOT_FOUND');
    }
    expectError(await get(`/api/users/me/tracks/${row.id}`, as(ARTIST)), 404, 'TRACK_NOT_FOUND');
    expect((await get('/api/users/me/tracks', as(ARTIST))).json().content.map((t: Track) => t.id)).not.toContain(row.id);
    for (const key of [originalKey, coverKey, rendition]) expect(await app.infra.storage.stat(key), key).toBeNull();
    expect(
      await app.infra.prisma.outboxEvent.count({
        where: {
          type: 'catalog.track.deleted.v1',
          AND: [{ payload: { path: ['data', 'trackId'], equals: row.id } }, { payload: { path: ['data', 'byAdmin'], equals: true } }],
        },
      }),
    ).toBe(1);

    expectError(await app.inject({ method: 'DELETE', url: `/api/admin/tracks/${row.id}`, headers: as(ADMIN, 'ADMIN') }), 404, 'TRACK_NOT_FOUND');
  });
});

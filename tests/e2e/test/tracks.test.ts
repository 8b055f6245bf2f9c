import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import {
  ErrorResponseSchema,
  pageSchema,
  RadioTrackSchema,
  TrackSchema,
  UploadAcceptedSchema,
  UploadStatusMessageSchema,
  type Track,
  type UploadStatusMessage,
} from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet } from './fleet.js';

const execFileAsync = promisify(execFile);
const fleet = new Fleet();
const WEB = 'http://web.test';
const AUDIO_MAX_BYTES = 4 * 1024 * 1024;
/** Configured below one hour so that an hour of silence is over it (the default is 3 h). */
const MAX_DURATION = 3000;

let dir: string;
let ffmpeg: string;
let ffprobe: string;
const files: Record<string, string> = {};
const users: Record<'alice' | 'bob' | 'carol', { userId: number; username: string; token: string }> = {} as never;

const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const media = () => fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>;

async function sign(userId: number, username: string): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username, role: 'ARTIST', tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function register(email: string, displayName: string) {
  const res = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, displayName, password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { userId: number; username: string };
  return { ...body, token: await sign(body.userId, body.username) };
}

async function lavfi(out: string, source: string, args: string[] = []) {
  await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', source, ...args, '-y', out]);
  return out;
}

/** A tone whose loudness swells and fades, so the waveform is not flat. */
const tone = (seconds: number, rate = 8000) => `aevalsrc=exprs='0.8*sin(440*2*PI*t)*(0.55+0.45*sin(2*PI*t/7))':s=${rate}:d=${seconds}`;

async function upload(
  file: string | Buffer,
  fields: Record<string, string> = {},
  options: { token?: string; v1?: boolean; name?: string } = {},
): Promise<Response> {
  const form = new FormData();
  const uploadId = fields.uploadId ?? randomUUID();
  for (const [k, v] of Object.entries({ title: 'E2E track', genre: 'Electronic', ...fields, uploadId })) form.append(k, v);
  const bytes = typeof file === 'string' ? await readFile(file) : file;
  form.append('audioFile', new Blob([bytes]), options.name ?? (typeof file === 'string' ? path.basename(file) : 'audio.bin'));
  return fetch(`${fleet.gatewayUrl}/api/tracks/upload${options.v1 ? '' : '/v2'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token ?? users.alice.token}` },
    body: form,
    signal: AbortSignal.timeout(80_000),
  });
}

async function uploadAccepted(file: string, fields: Record<string, string> = {}, options: { token?: string } = {}) {
  const res = await upload(file, fields, options);
  expect(res.status, await res.clone().text()).toBe(201);
  return UploadAcceptedSchema.parse(await res.json());
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function status(trackId: number, token = users.alice.token): Promise<UploadStatusMessage> {
  const res = await fleet.fetch(`/api/tracks/${trackId}/status`, { headers: auth(token) });
  expect(res.status).toBe(200);
  return UploadStatusMessageSchema.parse(await res.json());
}

async function finished(trackId: number, timeoutMs = 60_000, seen: number[] = [], token = users.alice.token): Promise<UploadStatusMessage> {
  return waitFor(
    async () => {
      const s = await status(trackId, token);
      if (s.progressPercentage !== null) seen.push(s.progressPercentage);
      if (s.status === 'FAILED') throw new Error(`track ${trackId} FAILED: ${s.errorMessage}`);
      return s.status === 'FINISHED' ? s : undefined;
    },
    { timeoutMs, intervalMs: 150, message: `track ${trackId} did not finish` },
  );
}

async function getTrack(trackId: number, token?: string): Promise<Response> {
  return fleet.fetch(`/api/tracks/${trackId}`, { headers: token ? auth(token) : {} });
}

async function uploadedKeys(): Promise<string[]> {
  return catalog().infra.storage.list('uploads/');
}

async function probeDuration(bytes: Buffer, name: string): Promise<number> {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  const { stdout } = await execFileAsync(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return Number(stdout.trim());
}

beforeAll(async () => {
  await fleet.start(
    { AUDIO_MAX_BYTES: String(64 * 1024 * 1024) },
    {
      catalog: { AUDIO_MAX_BYTES: String(AUDIO_MAX_BYTES), WEB_BASE_URL: WEB, UPLOAD_WAIT_MS: '30000', AUDIO_MAX_DURATION_SECONDS: String(MAX_DURATION) },
      identity: { WEB_BASE_URL: WEB },
      'media-processing': { JOB_POLL_MS: '200', JOB_LEASE_MS: '5000', WORKER_CONCURRENCY: '2' },
    },
  );
  ffmpeg = media().media.ffmpeg.path;
  ffprobe = media().media.ffprobe.path;
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-tracks-'));
  const [alice, bob, carol] = await Promise.all([
    register('alice-tracks@example.com', 'Alice Tracks'),
    register('bob-tracks@example.com', 'Bob Tracks'),
    register('carol-tracks@example.com', 'Carol Tracks'),
  ]);
  Object.assign(users, { alice, bob, carol });
  await Promise.all([
    lavfi(path.join(dir, 'long.wav'), tone(180)).then((f) => (files.long = f)),
    lavfi(path.join(dir, 'kill.wav'), tone(150)).then((f) => (files.kill = f)),
    lavfi(path.join(dir, 'short.wav'), tone(3)).then((f) => (files.wav = f)),
    lavfi(path.join(dir, 'short.mp3'), tone(4, 44100), ['-c:a', 'libmp3lame', '-b:a', '64k']).then((f) => (files.mp3 = f)),
    lavfi(path.join(dir, 'short.flac'), tone(3, 44100)).then((f) => (files.flac = f)),
    lavfi(path.join(dir, 'short.m4a'), tone(3, 44100), ['-c:a', 'aac', '-b:a', '96k']).then((f) => (files.m4a = f)),
    lavfi(path.join(dir, 'short.aac'), tone(3, 44100), ['-c:a', 'aac', '-b:a', '96k', '-f', 'adts']).then((f) => (files.aac = f)),
    lavfi(path.join(dir, 'short.ogg'), tone(3, 48000), ['-c:a', 'libopus', '-b:a', '64k']).then((f) => (files.ogg = f)),
    lavfi(path.join(dir, 'over.wav'), tone(300)).then((f) => (files.over = f)),
    lavfi(path.join(dir, 'image.png'), 'color=c=red:s=32x32', ['-frames:v', '1']).then((f) => (files.png = f)),
  ]);
  // Everything a signed-in listener reaches is in the projection before the tests start.
  await waitFor(async () => (await catalog().infra.prisma.userSummary.count()) >= 3 || undefined, { timeoutMs: 10_000 });
}, 120_000);

afterAll(async () => {
  await fleet.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 180_000);

describe('TRK-2 upload V2 → media worker → streamable audio', () => {
  let track: Track;
  const progress: number[] = [];

  it('accepts a 3-minute WAV at once and reaches FINISHED with increasing percentages (TRK-3)', async () => {
    const accepted = await uploadAccepted(files.long!, { title: 'Three Minutes', genre: 'E2E Waves', tags: '["Sine","sine","Test"]' });
    expect(accepted.trackState).toBe('UPLOADING');
    const done = await finished(accepted.id, 80_000, progress);
    expect(done).toMatchObject({
      uploadId: accepted.uploadId,
      trackId: accepted.id,
      trackState: 'FINISHED',
      progressPercentage: 100,
      stepName: 'Done',
      errorMessage: null,
    });
    expect(progress.length).toBeGreaterThan(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    track = TrackSchema.parse(done.trackResponse);
    expect(track).toMatchObject({ title: 'Three Minutes', state: 'FINISHED', trackDurationSeconds: 180, tags: ['sine', 'test'], isPrivate: false });
    expect(track.publishedAt).not.toBeNull();
  }, 90_000);

  it('answers a Range request on trackUrl with 206 and exactly the asked bytes', async () => {
    const res = await fetch(track.trackUrl!, { headers: { range: 'bytes=100-1123' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-type')).toBe('audio/mp4');
    expect(res.headers.get('content-range')).toMatch(/^bytes 100-1123\/\d+$/);
    expect((await res.arrayBuffer()).byteLength).toBe(1024);
    const whole = Buffer.from(await (await fetch(track.trackUrl!)).arrayBuffer());
    expect(whole.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('serves an HLS playlist of signed 6-s segments summing to 180 ± 1 s', async () => {
    const master = await fetch(track.hlsUrl!);
    expect(master.status).toBe(200);
    // hlsUrl is the master playlist of the adaptive ladder (sound.test.ts): follow its first rung.
    const rung = (await master.text()).split('\n').find((l) => l.startsWith('http'))!;
    const res = await fetch(rung);
    expect(res.status).toBe(200);
    const playlist = await res.text();
    const durations = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].map((m) => Number(m[1]));
    expect(Math.abs(durations.reduce((a, b) => a + b, 0) - 180)).toBeLessThanOrEqual(1);
    expect(Math.max(...durations)).toBeLessThanOrEqual(6.5);
    const segments = playlist.split('\n').filter((l) => l.startsWith('http'));
    expect(segments).toHaveLength(durations.length);
    const seg = await fetch(segments[0]!);
    expect(seg.status).toBe(200);
    expect(seg.headers.get('content-type')).toBe('video/mp2t');
    // Read it whole: a body left unread holds the stream (and the object store's connection) open.
    expect((await seg.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const unsigned = await fetch(segments[0]!.split('?')[0]!);
    expect(unsigned.status).toBe(400);
  });

  it('cuts a 30-second preview', async () => {
    const res = await fetch(track.trackPreviewUrl!);
    expect(res.status).toBe(200);
    const seconds = await probeDuration(Buffer.from(await res.arrayBuffer()), 'preview.m4a');
    expect(Math.abs(seconds - 30)).toBeLessThanOrEqual(0.5);
  });

  it('publishes a waveform of 1000 points in [0,1], not all equal (TRK-15)', async () => {
    const res = await fetch(track.waveformUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/public/);
    const points = (await res.json()) as number[];
    expect(points).toHaveLength(1000);
    for (const p of points) expect(p >= 0 && p <= 1).toBe(true);
    expect(new Set(points).size).toBeGreaterThan(10);
    const urlRes = await fleet.fetch(`/api/tracks/${track.id}/waveform-url`);
    expect(await urlRes.json()).toEqual({ trackId: track.id, waveformUrl: track.waveformUrl, duration: 180 });
  });
});

describe('TRK-2 formats (R11)', () => {
  it('accepts MP3, WAV, FLAC, AAC, M4A and OGG/Opus, each finishing', async () => {
    const formats = ['mp3', 'wav', 'flac', 'aac', 'm4a', 'ogg'] as const;
    const accepted = await Promise.all(formats.map((f) => uploadAccepted(files[f]!, { title: `Format ${f}`, genre: 'E2E Formats' })));
    const done = await Promise.all(accepted.map((a) => finished(a.id, 60_000)));
    for (const [i, s] of done.entries()) {
      expect(s.trackResponse?.trackDurationSeconds, formats[i]).toBeGreaterThanOrEqual(3);
      expect(s.trackResponse?.trackUrl, formats[i]).toMatch(/^http/);
    }
  }, 70_000);

  it('refuses fake, broken, empty, image and oversized files with the right code and leaves nothing in storage', async () => {
    const before = await uploadedKeys();
    const mp3 = await readFile(files.mp3!);
    const cases: Array<[string, Buffer, number, string]> = [
      ['text named .mp3', Buffer.from('this is definitely not audio, just some text\n'.repeat(20)), 400, 'UNSUPPORTED_AUDIO_FORMAT'],
      ['truncated mp3', mp3.subarray(0, 300), 400, 'UNSUPPORTED_AUDIO_FORMAT'],
      ['zero bytes', Buffer.alloc(0), 400, 'UNSUPPORTED_AUDIO_FORMAT'],
      ['png image', await readFile(files.png!), 400, 'UNSUPPORTED_AUDIO_FORMAT'],
      ['over the limit', await readFile(files.over!), 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [name, bytes, code, errorCode] of cases) {
      const res = await upload(bytes, { title: name }, { name: 'song.mp3' });
      expect(res.status, name).toBe(code);
      expect(ErrorResponseSchema.parse(await res.json()).code, name).toBe(errorCode);
    }
    expect(await uploadedKeys()).toEqual(before);
  });

  it('answers 400 VALIDATION_FAILED for bad fields and 409 UPLOAD_ID_CONFLICT for a reused uploadId', async () => {
    const bad = await upload(files.wav!, { title: '', tags: 'not json', access: 'SOMETIMES' });
    expect(bad.status).toBe(400);
    const body = ErrorResponseSchema.parse(await bad.json());
    expect(body.errors?.map((e) => e.field).sort()).toEqual(['access', 'tags', 'title']);
    const uploadId = randomUUID();
    await uploadAccepted(files.wav!, { uploadId, title: 'First' });
    const again = await upload(files.wav!, { uploadId, title: 'Second' });
    expect(again.status).toBe(409);
    expect(ErrorResponseSchema.parse(await again.json()).code).toBe('UPLOAD_ID_CONFLICT');
  });
});

describe('media worker killed during a job', () => {
  it('hands the job back on shutdown and finishes it after the restart', async () => {
    const accepted = await uploadAccepted(files.kill!, { title: 'Interrupted', genre: 'E2E Kill' });
    await waitFor(async () => ((await status(accepted.id)).progressPercentage ?? 0) >= 40 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 100,
      message: 'transcoding never started',
    });
    expect(media().runner.running).toBeGreaterThan(0);
    await fleet.stopService('media-processing');
    expect((await status(accepted.id)).status).toBe('PROCESSING');
    await fleet.startService('media-processing');
    const done = await finished(accepted.id, 60_000);
    expect(done.trackResponse?.trackDurationSeconds).toBe(150);
  }, 100_000);
});

describe('R12 FREE quota and TRK-9 delete', () => {
  it('refuses the 11th track of a FREE account until one is deleted', async () => {
    const own = await fleet.fetch('/api/users/me/tracks?size=100', { headers: auth(users.alice.token) });
    const owned = (await own.json()) as { totalElements: number; content: Track[] };
    for (let n = owned.totalElements; n < 10; n++) await uploadAccepted(files.wav!, { title: `Filler ${n}` });
    const refused = await upload(files.wav!, { title: 'One too many' });
    expect(refused.status).toBe(403);
    const body = ErrorResponseSchema.parse(await refused.json());
    expect(body.code).toBe('UPLOAD_QUOTA_EXCEEDED');
    expect(body.message).toContain('out of free tracks');

    const victim = owned.content.find((t) => t.title === 'First')!;
    const del = await fleet.fetch(`/api/tracks/${victim.id}`, { method: 'DELETE', headers: auth(users.alice.token) });
    expect(del.status).toBe(200);
    expect((await getTrack(victim.id, users.alice.token)).status).toBe(404);
    await uploadAccepted(files.wav!, { title: 'After delete' });
  });
});

describe('USR-17 R2/R3 access through the byte paths', () => {
  const ids: Record<'playable' | 'private' | 'preview' | 'blocked', number> = {} as never;
  const owner: Record<string, Track> = {};

  beforeAll(async () => {
    const as = { token: users.carol.token };
    const made = await Promise.all([
      uploadAccepted(files.wav!, { title: 'Open', genre: 'E2E Access' }, as),
      uploadAccepted(files.wav!, { title: 'Hidden', genre: 'E2E Access', isPrivate: 'true' }, as),
      uploadAccepted(files.wav!, { title: 'Teaser', genre: 'E2E Access', access: 'PREVIEW' }, as),
      uploadAccepted(files.wav!, { title: 'Locked', genre: 'E2E Access', access: 'BLOCKED' }, as),
    ]);
    [ids.playable, ids.private, ids.preview, ids.blocked] = made.map((m) => m.id) as [number, number, number, number];
    for (const m of made) owner[m.id] = TrackSchema.parse((await finished(m.id, 60_000, [], users.carol.token)).trackResponse);
  }, 60_000);

  it('private track: 404 for others and anonymous, 200 through its token (TRK-13)', async () => {
    expect((await getTrack(ids.private, users.bob.token)).status).toBe(404);
    expect((await getTrack(ids.private)).status).toBe(404);
    expect((await getTrack(ids.private, users.carol.token)).status).toBe(200);
    const token = owner[ids.private]!.secretToken!;
    const res = await fleet.fetch(`/api/tracks/token/${token}`);
    expect(res.status).toBe(200);
    const viaToken = TrackSchema.parse(await res.json());
    expect(viaToken).toMatchObject({ id: ids.private, secretToken: null, isPrivate: true });
    expect((await fetch(viaToken.trackUrl!, { headers: { range: 'bytes=0-99' } })).status).toBe(206);
  });

  it('PREVIEW: only the preview URL is given and works', async () => {
    const track = TrackSchema.parse(await (await getTrack(ids.preview, users.bob.token)).json());
    expect(track.trackUrl).toBeNull();
    expect(track.hlsUrl).toBeNull();
    const preview = await fetch(track.trackPreviewUrl!);
    expect(preview.status).toBe(200);
    // Read it whole: a body left unread holds the gateway's proxied stream (and the fleet's close) open.
    expect((await preview.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const forged = track.trackPreviewUrl!.replace('/preview.m4a?', '/full.m4a?');
    expect((await fetch(forged)).status).toBe(403);
    const forgedHls = track.trackPreviewUrl!.replace('/preview.m4a?', '/index.m3u8?');
    expect((await fetch(forgedHls)).status).toBe(403);
  });

  it('BLOCKED: no stream URL, and another track’s signed URL cannot be reused for it', async () => {
    const track = TrackSchema.parse(await (await getTrack(ids.blocked, users.bob.token)).json());
    expect([track.trackUrl, track.trackPreviewUrl, track.hlsUrl]).toEqual([null, null, null]);
    expect(track.waveformUrl).toMatch(/^http/);
    const open = TrackSchema.parse(await (await getTrack(ids.playable, users.bob.token)).json());
    expect((await fetch(open.trackUrl!)).status).toBe(200);
    const reused = open.trackUrl!.replace(`/tracks/${ids.playable}/`, `/tracks/${ids.blocked}/`);
    expect((await fetch(reused)).status).toBe(403);
    const play = await fleet.fetch(`/api/tracks/${ids.blocked}/play`, { method: 'POST', headers: auth(users.bob.token) });
    expect(play.status).toBe(403);
    expect(ErrorResponseSchema.parse(await play.json()).code).toBe('TRACK_NOT_PLAYABLE');
    // The artist still gets full URLs (R3).
    expect((await fetch(owner[ids.blocked]!.trackUrl!)).status).toBe(200);
  });

  it('TRK-17 counts one play per listener within 30 s (R9) and TRK-5/TRK-12 behave', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fleet.fetch(`/api/tracks/${ids.playable}/play`, { method: 'POST', headers: auth(users.bob.token) });
      expect(res.status).toBe(200);
    }
    const track = TrackSchema.parse(await (await getTrack(ids.playable)).json());
    expect(track.playCount).toBe(1);
    const history = await fleet.fetch('/api/users/me/history', { headers: auth(users.bob.token) });
    expect(
      pageSchema(TrackSchema)
        .parse(await history.json())
        .content.map((t) => t.id),
    ).toEqual([ids.playable]);

    const published = await fleet.fetch(`/api/tracks/${ids.private}/publish`, { method: 'POST', headers: auth(users.carol.token) });
    expect(published.status).toBe(200);
    expect(((await published.json()) as { permalink: string }).permalink).toBe(`${WEB}/${users.carol.username}/hidden`);
    const again = await fleet.fetch(`/api/tracks/${ids.private}/publish`, { method: 'POST', headers: auth(users.carol.token) });
    expect(again.status).toBe(409);

    const oldToken = owner[ids.private]!.secretToken!;
    const regen = await fleet.fetch(`/api/tracks/${ids.private}/regenerate-token`, { method: 'POST', headers: auth(users.carol.token) });
    expect(regen.status).toBe(200);
    expect((await fleet.fetch(`/api/tracks/token/${oldToken}`)).status).toBe(404);
  });
});

describe('DSC-5 radio station by genre', () => {
  it('returns the Page wrapper of Radio tracks of that genre, case-insensitively', async () => {
    const res = await fleet.fetch('/api/stations/genre?genre=e2e%20access&page=0&size=2');
    expect(res.status).toBe(200);
    const page = pageSchema(RadioTrackSchema).parse(await res.json());
    expect(page).toMatchObject({ pageNumber: 0, pageSize: 2 });
    expect(page.content.length).toBeGreaterThan(0);
    for (const item of page.content) {
      expect(item).toMatchObject({ genre: 'E2E Access', state: 'FINISHED', type: 'TRACK' });
      expect(item.track.id).toBe(item.id);
    }
    // Only PLAYABLE public tracks (the open one and the published one).
    expect(page.totalElements).toBe(2);
    const again = pageSchema(RadioTrackSchema).parse(await (await fleet.fetch('/api/stations/genre?genre=E2E%20ACCESS&page=0&size=2')).json());
    expect(again.content.map((t) => t.id)).toEqual(page.content.map((t) => t.id));
    expect((await fleet.fetch('/api/stations/genre?page=0')).status).toBe(400);
  });
});

describe('TRK-16 embed player and oEmbed', () => {
  it('gives iframe code for the web player and serves a player page that draws and plays', async () => {
    const [first] = pageSchema(RadioTrackSchema).parse(await (await fleet.fetch('/api/stations/genre?genre=E2E%20Waves')).json()).content;
    const embed = await fleet.fetch(`/api/tracks/${first!.id}/embed`);
    expect(embed.status).toBe(200);
    const { embedCode, embedUrl } = (await embed.json()) as { embedCode: string; embedUrl: string };
    const permalink = `${WEB}/${users.alice.username}/three-minutes`;
    expect(embedUrl).toBe(`${WEB}/embed/player?url=${encodeURIComponent(permalink)}`);
    expect(embedCode).toContain('<iframe');

    const oembed = await fleet.fetch(`/api/oembed?url=${encodeURIComponent(permalink)}`);
    expect(oembed.status).toBe(200);
    expect(await oembed.json()).toMatchObject({ version: '1.0', type: 'rich', title: expect.stringContaining('Three Minutes') });

    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--autoplay-policy=no-user-gesture-required'],
    });
    try {
      const page = await browser.newPage();
      const res = await page.goto(`${fleet.gatewayUrl}/api/embed/player?url=${encodeURIComponent(permalink)}`);
      expect(res?.status()).toBe(200);
      expect(await page.textContent('#title')).toBe('Three Minutes');
      expect(await page.textContent('#artist')).toBe('Alice Tracks');
      await page.waitForFunction("document.querySelector('canvas')?.dataset.drawn === '1000'", undefined, { timeout: 15_000 });
      await page.waitForFunction('document.querySelector("audio").readyState >= 2', undefined, { timeout: 15_000 });
    } finally {
      await browser.close();
    }
  }, 40_000);
});

describe('TRK-2 audio duration limit (a tiny file cannot buy hours of CPU)', () => {
  it('refuses an hour of silent FLAC over the configured limit with 400 before 201, and processes a silent FLAC under it', async () => {
    const hour = await lavfi(path.join(dir, 'hour-silence.flac'), 'anullsrc=r=8000:cl=mono', ['-t', '3600', '-c:a', 'flac']);
    expect((await readFile(hour)).length).toBeLessThan(AUDIO_MAX_BYTES);
    const dora = await register('dora-tracks@example.com', 'Dora Tracks'); // a FREE quota of her own
    const before = (await uploadedKeys()).length;
    const refused = await upload(hour, { title: 'An hour of nothing' }, { token: dora.token });
    expect(refused.status).toBe(400);
    const error = (await refused.json()) as { code: string; message: string; errors: Array<{ field: string; message: string }> };
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.errors[0]?.field).toBe('audioFile');
    expect(error.message).toContain('50 min');
    expect((await uploadedKeys()).length).toBe(before);

    const short = await lavfi(path.join(dir, 'short-silence.flac'), 'anullsrc=r=8000:cl=mono', ['-t', '90', '-c:a', 'flac']);
    const accepted = await uploadAccepted(short, { title: 'Ninety seconds of nothing' }, { token: dora.token });
    const done = await finished(accepted.id, 60_000, [], dora.token);
    expect(done.trackResponse?.trackDurationSeconds).toBe(90);
  }, 90_000);
});

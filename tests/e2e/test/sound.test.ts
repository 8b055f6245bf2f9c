import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Parser } from 'm3u8-parser';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, LoudnessReportSchema, TrackSchema, UploadAcceptedSchema, UploadStatusMessageSchema, type Track } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet } from './fleet.js';

/**
 * Sound at ingest through the gateway (docs/sound.md): loudness measured on the original, the
 * gain of the Track record, the uploader's report (SND-1) and the adaptive HLS ladder behind
 * `hlsUrl`, every playlist and segment URL signed with the track's expiry.
 */
const execFileAsync = promisify(execFile);
const fleet = new Fleet();
/** The shortest URL lifetime catalog accepts, so that the expiry test waits seconds, not an hour. */
const URL_TTL_SECONDS = 10;
const TARGET_LUFS = -14;
const SECONDS = 20;
const WEB = 'http://web.test';

let dir: string;
let ffmpeg: string;
const users: Record<'artist' | 'other' | 'admin', { token: string; username: string }> = {} as never;
const tracks: Record<'loud' | 'quiet', { id: number; file: string; ffmpeg: { integrated: number; range: number; peak: number } }> = {} as never;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function sign(userId: number, username: string, role: 'ARTIST' | 'ADMIN' = 'ARTIST'): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

async function register(email: string, displayName: string) {
  const res = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, displayName, password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { userId: number; username: string };
  return { username: body.username, token: await sign(body.userId, body.username) };
}

/** A stereo 997 Hz tone of `amplitude` (full scale 1), with a slow swell so the range is not 0. */
async function tone(name: string, amplitude: number): Promise<string> {
  const file = path.join(dir, `${name}.wav`);
  const wave = `${amplitude}*sin(997*2*PI*t)*(0.8+0.2*sin(2*PI*t/5))`;
  await execFileAsync(ffmpeg, ['-hide_banner', '-v', 'error', '-f', 'lavfi', '-i', `aevalsrc=exprs='${wave}|${wave}':s=44100:d=${SECONDS}`, '-y', file]);
  return file;
}

/** ffmpeg's own EBU R 128 summary of a file (integrated LUFS, LRA, true peak dBFS). */
async function ebur128(file: string): Promise<{ integrated: number; range: number; peak: number }> {
  const { stderr } = await execFileAsync(ffmpeg, ['-hide_banner', '-nostats', '-i', file, '-filter_complex', 'ebur128=peak=true', '-f', 'null', '-']);
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const value = (label: RegExp) => Number(label.exec(summary)?.[1]);
  return { integrated: value(/I:\s+(-?[\d.]+) LUFS/), range: value(/LRA:\s+(-?[\d.]+) LU/), peak: value(/Peak:\s+(-?[\d.]+) dBFS/) };
}

async function uploadFinished(file: string, title: string): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title, genre: 'E2E Sound', uploadId: randomUUID() })) form.append(k, v);
  form.append('audioFile', new Blob([await readFile(file)]), path.basename(file));
  const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, { method: 'POST', headers: auth(users.artist.token), body: form });
  expect(res.status, await res.clone().text()).toBe(201);
  const { id } = UploadAcceptedSchema.parse(await res.json());
  await waitFor(
    async () => {
      const status = UploadStatusMessageSchema.parse(await (await fleet.fetch(`/api/tracks/${id}/status`, { headers: auth(users.artist.token) })).json());
      if (status.status === 'FAILED') throw new Error(`track ${id} FAILED: ${status.errorMessage}`);
      return status.status === 'FINISHED' || undefined;
    },
    { timeoutMs: 60_000, intervalMs: 150, message: `track ${id} did not finish` },
  );
  return id;
}

async function track(id: number, token?: string): Promise<Track> {
  const res = await fleet.fetch(`/api/tracks/${id}`, { headers: token ? auth(token) : {} });
  expect(res.status).toBe(200);
  return TrackSchema.parse(await res.json());
}

const parse = (text: string) => {
  const parser = new Parser();
  parser.push(text);
  parser.end();
  return parser.manifest;
};

/** The rule of docs/sound.md, from ffmpeg's figures. */
const expectedGain = (m: { integrated: number; peak: number }) => Math.min(TARGET_LUFS - m.integrated, -1 - m.peak);

beforeAll(async () => {
  await fleet.start(
    {},
    {
      catalog: { MEDIA_URL_TTL_SECONDS: String(URL_TTL_SECONDS), LOUDNESS_TARGET_LUFS: String(TARGET_LUFS), WEB_BASE_URL: WEB },
      'media-processing': { JOB_POLL_MS: '200', WORKER_CONCURRENCY: '2' },
    },
  );
  ffmpeg = (fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>).media.ffmpeg.path;
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-sound-'));
  const artist = await register('artist-sound@example.com', 'Sound Artist');
  const other = await register('other-sound@example.com', 'Other Listener');
  Object.assign(users, { artist, other, admin: { username: 'sound-admin', token: await sign(990_003, 'sound-admin', 'ADMIN') } });
  // About −6 LUFS and about −24 LUFS.
  const [loud, quiet] = await Promise.all([tone('loud', 0.6), tone('quiet', 0.075)]);
  const [loudId, quietId, loudRef, quietRef] = await Promise.all([
    uploadFinished(loud, 'Loud Master'),
    uploadFinished(quiet, 'Quiet Master'),
    ebur128(loud),
    ebur128(quiet),
  ]);
  Object.assign(tracks, { loud: { id: loudId, file: loud, ffmpeg: loudRef }, quiet: { id: quietId, file: quiet, ffmpeg: quietRef } });
}, 120_000);

afterAll(async () => {
  await fleet.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('TRK-6 / SND-1 loudness of the original and the playback gain', () => {
  it('measures a loud and a quiet master within 0.5 LU of ffmpeg, with the gain of the rule', async () => {
    expect(tracks.loud.ffmpeg.integrated).toBeGreaterThan(-8);
    expect(tracks.quiet.ffmpeg.integrated).toBeLessThan(-22);
    for (const name of ['loud', 'quiet'] as const) {
      const { id, ffmpeg: ref } = tracks[name];
      // Anybody sees the Track record's loudness of a public track.
      const loudness = (await track(id, users.other.token)).loudness!;
      expect(Math.abs(loudness.integratedLufs! - ref.integrated), name).toBeLessThanOrEqual(0.5);
      expect(Math.abs(loudness.rangeLu! - ref.range), name).toBeLessThanOrEqual(0.5);
      expect(Math.abs(loudness.truePeakDbtp! - ref.peak), name).toBeLessThanOrEqual(0.5);
      expect(Math.abs(loudness.gainDb - expectedGain(ref)), name).toBeLessThanOrEqual(0.5);
    }
    expect((await track(tracks.loud.id)).loudness!.gainDb).toBeLessThan(-7);
    expect((await track(tracks.quiet.id)).loudness!.gainDb).toBeGreaterThan(9);
  });

  it('gives the artist the report: figures, target, a value per second and plain-words verdicts', async () => {
    const res = await fleet.fetch(`/api/tracks/${tracks.loud.id}/loudness`, { headers: auth(users.artist.token) });
    expect(res.status).toBe(200);
    const report = LoudnessReportSchema.parse(await res.json());
    const record = (await track(tracks.loud.id)).loudness!;
    expect(report).toMatchObject({ trackId: tracks.loud.id, targetLufs: TARGET_LUFS, duplicateOf: null, ...record });
    expect(report.shortTermLufs).toHaveLength(SECONDS);
    expect(Math.abs(report.shortTermLufs[10]! - record.integratedLufs!)).toBeLessThan(2);
    expect(report.verdicts[0]).toMatchObject({ code: 'TURNED_DOWN' });
    expect(report.verdicts[0]!.message).toContain(`${Math.abs(record.gainDb).toFixed(1)} dB`);
    const quiet = LoudnessReportSchema.parse(
      await (await fleet.fetch(`/api/tracks/${tracks.quiet.id}/loudness`, { headers: auth(users.artist.token) })).json(),
    );
    expect(quiet.verdicts[0]).toMatchObject({ code: 'TURNED_UP' });
  });

  it('shows the report to admins, answers 404 to anybody else and 401 without a token', async () => {
    const admin = await fleet.fetch(`/api/tracks/${tracks.quiet.id}/loudness`, { headers: auth(users.admin.token) });
    expect(admin.status).toBe(200);
    const other = await fleet.fetch(`/api/tracks/${tracks.quiet.id}/loudness`, { headers: auth(users.other.token) });
    expect(other.status).toBe(404);
    expect(ErrorResponseSchema.parse(await other.json()).code).toBe('TRACK_NOT_FOUND');
    expect((await fleet.fetch(`/api/tracks/${tracks.quiet.id}/loudness`)).status).toBe(401);
    expect((await fleet.fetch(`/api/tracks/999999/loudness`, { headers: auth(users.artist.token) })).status).toBe(404);
  });
});

describe('MEDIA-1 / MEDIA-2 adaptive HLS behind hlsUrl', () => {
  it('serves a master playlist of three AAC rungs in ascending bandwidth, each adding up to the duration', async () => {
    const { hlsUrl, trackDurationSeconds } = await track(tracks.loud.id, users.other.token);
    const expires = new URL(hlsUrl!).searchParams.get('e');
    const res = await fetch(hlsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const master = parse(await res.text());
    const variants = master.playlists ?? [];
    expect(variants).toHaveLength(3);
    const bandwidths = variants.map((v) => v.attributes.BANDWIDTH!);
    expect(bandwidths).toEqual([...bandwidths].sort((a, b) => a - b));
    expect(new Set(bandwidths).size).toBe(3);
    for (const variant of variants) {
      expect(variant.attributes.CODECS).toBe('mp4a.40.2');
      expect(Number(variant.attributes['AVERAGE-BANDWIDTH'])).toBeLessThanOrEqual(variant.attributes.BANDWIDTH!);
      const url = new URL(variant.uri);
      expect(url.searchParams.get('e')).toBe(expires);
      // HMAC-SHA256 in base64url (catalog's MediaSigner).
      expect(url.searchParams.get('s')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const media = parse(await (await fetch(variant.uri)).text());
      const total = media.segments.reduce((sum, s) => sum + s.duration, 0);
      expect(Math.abs(total - trackDurationSeconds!)).toBeLessThanOrEqual(0.1);
      for (const segment of media.segments) expect(new URL(segment.uri).searchParams.get('e')).toBe(expires);
      const first = await fetch(media.segments[0]!.uri);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('video/mp2t');
      // Read it whole: a body left unread holds the stream (and the object store's connection) open.
      expect((await first.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('refuses a tampered playlist or segment URL, and every one of them once the track URLs expire', async () => {
    const { hlsUrl } = await track(tracks.quiet.id, users.other.token);
    const variantUrl = parse(await (await fetch(hlsUrl!)).text()).playlists![0]!.uri;
    const segmentUrl = parse(await (await fetch(variantUrl)).text()).segments[0]!.uri;
    const tamper = (url: string) => url.replace(/s=([^&]+)/, (_, s: string) => `s=${s.startsWith('A') ? 'B' : 'A'}${s.slice(1)}`);
    for (const url of [hlsUrl!, variantUrl, segmentUrl]) expect((await fetch(tamper(url))).status).toBe(403);
    // Another track's signature does not open this one's rungs either.
    const loudVariant = new URL(variantUrl.replace(`/tracks/${tracks.quiet.id}/`, `/tracks/${tracks.loud.id}/`));
    expect((await fetch(loudVariant)).status).toBe(403);
    const expires = Number(new URL(hlsUrl!).searchParams.get('e'));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires * 1000 - Date.now() + 1100)));
    for (const url of [hlsUrl!, variantUrl, segmentUrl]) expect((await fetch(url)).status).toBe(403);
  }, 30_000);
});

describe('EMBED-1 the embed player applies the gain', () => {
  it('turns the loud track down through the volume and the quiet one up through a Web Audio gain', async () => {
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--autoplay-policy=no-user-gesture-required'],
    });
    try {
      for (const name of ['loud', 'quiet'] as const) {
        const { trackSlug, loudness } = await track(tracks[name].id);
        const page = await browser.newPage();
        const permalink = `${WEB}/${users.artist.username}/${trackSlug}`;
        expect((await page.goto(`${fleet.gatewayUrl}/api/embed/player?url=${encodeURIComponent(permalink)}`))?.status()).toBe(200);
        expect(Number(await page.getAttribute('audio', 'data-gain-db'))).toBe(loudness!.gainDb);
        if (name === 'loud') {
          expect(await page.getAttribute('audio', 'data-gain-via')).toBe('volume');
          expect(Number(await page.evaluate("document.querySelector('audio').volume"))).toBeCloseTo(10 ** (loudness!.gainDb / 20), 3);
        } else {
          await page.evaluate("document.querySelector('audio').play()");
          await page.waitForFunction("document.querySelector('audio').dataset.gainVia === 'webaudio'", undefined, { timeout: 15_000 });
          expect(Number(await page.evaluate("document.querySelector('audio').volume"))).toBe(1);
        }
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 40_000);
});

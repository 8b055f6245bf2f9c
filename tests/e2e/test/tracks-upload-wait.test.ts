import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, TrackSchema, UploadStatusMessageSchema, type Track } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet } from './fleet.js';

const execFileAsync = promisify(execFile);
const fleet = new Fleet();
/** Kept by reference: the fleet reads it again when a service restarts, so a test can change the wait. */
const serviceEnv = {
  catalog: { UPLOAD_WAIT_MS: '30000' },
  'media-processing': { JOB_POLL_MS: '200', JOB_LEASE_MS: '5000', WORKER_CONCURRENCY: '2' },
};

let dir: string;
let ffmpeg: string;
let token: string;
const files: Record<string, string> = {};

const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const media = () => fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>;

async function lavfi(out: string, source: string, args: string[] = []) {
  await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', source, ...args, '-y', out]);
  return out;
}

const tone = (seconds: number, rate = 8000) => `aevalsrc=exprs='0.8*sin(440*2*PI*t)*(0.55+0.45*sin(2*PI*t/7))':s=${rate}:d=${seconds}`;

async function upload(file: string | Buffer, title: string): Promise<Response> {
  const form = new FormData();
  form.append('title', title);
  form.append('genre', 'E2E Wait');
  form.append('audioFile', new Blob([typeof file === 'string' ? await readFile(file) : file]), 'audio.wav');
  return fetch(`${fleet.gatewayUrl}/api/tracks/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
    signal: AbortSignal.timeout(40_000),
  });
}

/** A RIFF/WAVE file whose header names MPEG audio (format tag 0x55) over bytes that are not MPEG frames. */
function undecodableWav(): Buffer {
  const data = Buffer.alloc(16_000, 0);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(0x55, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

beforeAll(async () => {
  await fleet.start({}, serviceEnv);
  ffmpeg = media().media.ffmpeg.path;
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-upload-wait-'));
  const res = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'wait-upload@example.com', displayName: 'Wait Upload', password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(res.status).toBe(201);
  const user = (await res.json()) as { userId: number; username: string };
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  token = await identity.keys.sign(
    { sub: String(user.userId), username: user.username, role: 'ARTIST', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
    1800,
    'msp-identity',
  );
  await Promise.all([
    lavfi(path.join(dir, 'short.wav'), tone(3)).then((f) => (files.short = f)),
    // Long enough that processing (loudness, three HLS rungs, fingerprint) outlasts the 1.5-s wait.
    lavfi(path.join(dir, 'long.wav'), tone(180)).then((f) => (files.long = f)),
  ]);
  await waitFor(async () => (await catalog().infra.prisma.userSummary.count()) >= 1 || undefined, { timeoutMs: 10_000 });
}, 90_000);

afterAll(async () => {
  await fleet.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('TRK-1 upload a new track and wait for processing', () => {
  it('answers 201 with Track (full) plus durationSeconds once the media worker finished', async () => {
    const res = await upload(files.short!, 'Waited For');
    expect(res.status, await res.clone().text()).toBe(201);
    const body = (await res.json()) as Track & { durationSeconds: number };
    const track = TrackSchema.parse(body);
    expect(track).toMatchObject({ title: 'Waited For', state: 'FINISHED', isPrivate: false, trackDurationSeconds: 3 });
    expect(body.durationSeconds).toBe(3);
    expect(track.trackUrl).toEqual(expect.any(String));
    expect(track.hlsUrl).toEqual(expect.any(String));
    expect(track.waveformUrl).toEqual(expect.any(String));
    expect(track.publishedAt).toEqual(expect.any(String));
    const audio = await fetch(track.trackUrl!);
    expect(audio.status).toBe(200);
  });

  it('answers 422 TRACK_PROCESSING_FAILED when the worker cannot decode the audio, and keeps the track FAILED', async () => {
    // ffprobe finds one audio stream with packets in the WAV container; decoding yields no audio.
    const res = await upload(undecodableWav(), 'Undecodable');
    expect(res.status, await res.clone().text()).toBe(422);
    const body = ErrorResponseSchema.parse(await res.json());
    expect(body.code).toBe('TRACK_PROCESSING_FAILED');
    const row = await catalog().infra.prisma.track.findFirstOrThrow({ where: { title: 'Undecodable' } });
    expect(row.state).toBe('FAILED');
    const status = await fleet.fetch(`/api/tracks/${row.id}/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(UploadStatusMessageSchema.parse(await status.json())).toMatchObject({ status: 'FAILED', errorMessage: expect.any(String) });
  });

  it('answers 202 with the unfinished track after the configured wait, then finishes in the background', async () => {
    serviceEnv.catalog.UPLOAD_WAIT_MS = '1500';
    await fleet.stopService('catalog');
    await fleet.startService('catalog');
    const started = Date.now();
    const res = await upload(files.long!, 'Still Processing');
    expect(res.status, await res.clone().text()).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    const body = (await res.json()) as Track & { durationSeconds: number | null };
    expect(TrackSchema.parse(body)).toMatchObject({ title: 'Still Processing', state: 'PROCESSING', trackUrl: null, publishedAt: null });
    expect(body.durationSeconds).toBeNull();
    await waitFor(
      async () => {
        const s = UploadStatusMessageSchema.parse(
          await (await fleet.fetch(`/api/tracks/${body.id}/status`, { headers: { authorization: `Bearer ${token}` } })).json(),
        );
        return s.status === 'FINISHED' ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'the 202 track did not finish' },
    );
  }, 120_000);
});

import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackDuplicateDetected } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMediaProcessingConfig } from '../src/app.js';
import { fingerprintFile, ITEM_SECONDS } from '../src/fingerprint/fingerprint.js';
import { FingerprintRepository } from '../src/fingerprint/fingerprint.repository.js';
import { FingerprintStep, findMatch } from '../src/fingerprint/fingerprint.service.js';
import { JobsRepository } from '../src/jobs/jobs.repository.js';

/*
 * Acoustic fingerprints of finished uploads (docs/fingerprints.md), through the worker's real run:
 * the audio is generated with ffmpeg's lavfi (note sequences drawn from a hash of time, so two
 * seeds are two different pieces), stored in the private s3rver, and processed as an upload.
 */

const execFileAsync = promisify(execFile);
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const DUPLICATE = TrackDuplicateDetected.type;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let workDir: string;
let ffmpeg: string;

/** A melody over a bass line; `seed` picks the notes, so two seeds are two pieces. */
function piece(seed: number, seconds: number): string {
  const note = (rate: string, salt: number, span: number) => `floor(${span}*abs(mod(sin(floor(t*${rate})*${salt})*43758.5453\\,1)))`;
  const melody = `0.5*sin(2*PI*t*220*pow(2\\,${note('4', 12.9898 + seed, 12)}/12))`;
  const bass = `0.3*sin(2*PI*t*110*pow(2\\,${note('1', 4.1414 + seed * 3, 7)}*2/12))`;
  return `aevalsrc=exprs=${melody}+${bass}:s=44100:d=${seconds}`;
}

async function generate(name: string, lavfi: string, output: string[]): Promise<string> {
  const file = path.join(workDir, name);
  await execFileAsync(ffmpeg, ['-hide_banner', '-nostdin', '-v', 'error', '-f', 'lavfi', '-i', lavfi, ...output, '-y', file]);
  return file;
}

/** One upload through the worker: the file goes to the bucket, the job row is recorded, the runner runs it. */
async function processAsUpload(trackId: number, file: string, format: string): Promise<{ uploadId: string }> {
  const uploadId = randomUUID();
  const originalKey = `originals/${trackId}/${uploadId}.${format}`;
  const bytes = await readFile(file);
  await app.infra.storage.put(originalKey, bytes, 'application/octet-stream');
  const jobs = new JobsRepository(app.infra.prisma);
  await app.infra.prisma.$transaction((tx) =>
    jobs.enqueue(tx, {
      trackId,
      uploadId,
      attempt: 1,
      artistId: 1,
      bucket: app.infra.storage.bucket,
      originalKey,
      format,
      sizeBytes: bytes.length,
      coverKey: null,
    }),
  );
  app.runner.wake();
  await waitFor(
    async () => {
      const [job] = await app.infra.prisma.$queryRawUnsafe<{ state: string; last_error: string | null }[]>(
        `SELECT state::text, last_error FROM jobs WHERE upload_id = $1::uuid`,
        uploadId,
      );
      if (job?.state === 'FAILED') throw new Error(`job failed: ${job.last_error}`);
      return job?.state === 'SUCCEEDED';
    },
    { timeoutMs: 55_000, intervalMs: 100 },
  );
  return { uploadId };
}

async function duplicateEvents(trackId: number) {
  const rows = await app.infra.prisma.$queryRawUnsafe<{ payload: { data: unknown } }[]>(
    `SELECT payload FROM outbox_event WHERE type = $1 AND (payload->'data'->>'trackId')::int = $2 ORDER BY seq`,
    DUPLICATE,
    trackId,
  );
  return rows.map((r) => TrackDuplicateDetected.schema.parse(r.payload.data));
}

async function indexRows(trackId: number): Promise<number> {
  const [row] = await app.infra.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM fingerprint_hash WHERE track_id = $1`, trackId);
  return row?.n ?? 0;
}

let source: string;
let copy: string;
let other: string;

beforeAll(async () => {
  env = await startServiceTestEnv('media_fingerprint', migrations);
  app = await buildApp(loadMediaProcessingConfig({ ...env.env, JOB_POLL_MS: '200' }), { logger: false });
  await app.ready();
  ffmpeg = app.media.ffmpeg.path;
  workDir = await mkdtemp(path.join(os.tmpdir(), 'media-fingerprint-test-'));
  [source, other] = await Promise.all([
    generate('source.wav', piece(0, 20), ['-c:a', 'pcm_s16le']),
    generate('other.wav', piece(7, 20), ['-c:a', 'pcm_s16le']),
  ]);
  // The copy: MP3 at 128 kbps of the source with its first 5 s cut.
  copy = path.join(workDir, 'copy.mp3');
  await execFileAsync(ffmpeg, ['-hide_banner', '-nostdin', '-v', 'error', '-ss', '5', '-i', source, '-c:a', 'libmp3lame', '-b:a', '128k', '-y', copy]);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('fingerprints of finished uploads (worker step, no public operation)', () => {
  // A full processing run each (transcodes, ladder, loudness, waveform): a minute at most on a busy machine.
  it('stores the Chromaprint fingerprint of a processed upload and its index rows', { timeout: 60_000 }, async () => {
    await processAsUpload(101, source, 'wav');
    const [row] = await app.infra.prisma.$queryRawUnsafe<{ items: number; hashes: number }[]>(
      `SELECT items, cardinality(index_hashes) AS hashes FROM track_fingerprint WHERE track_id = 101`,
    );
    // About 8 sub-fingerprints a second, less Chromaprint's ~2.6-s start.
    expect(row?.items).toBeGreaterThan(130);
    expect(row?.items).toBeLessThan(165);
    expect(row?.hashes).toBeGreaterThan(0);
    expect(await indexRows(101)).toBe(row?.hashes);
  });

  it('finds an MP3 128k copy with its first 5 s cut, with evidence, in one event', { timeout: 60_000 }, async () => {
    const { uploadId } = await processAsUpload(102, copy, 'mp3');
    const events = await duplicateEvents(102);
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event).toMatchObject({ trackId: 102, uploadId, attempt: 1, duplicateOfTrackId: 101 });
    expect(event.coverage).toBeGreaterThanOrEqual(0.9);
    expect(event.score).toBeGreaterThan(0.6);
    // The copy starts 5 s into the source: its stretch starts near 0 and the source's near 5 s.
    expect(event.trackStartSeconds).toBeLessThan(1);
    expect(Math.abs(event.duplicateStartSeconds - event.trackStartSeconds - 5)).toBeLessThan(2 * ITEM_SECONDS);
    expect(event.trackEndSeconds - event.trackStartSeconds).toBeCloseTo(event.duplicateEndSeconds - event.duplicateStartSeconds, 5);
    expect(event.trackEndSeconds - event.trackStartSeconds).toBeGreaterThan(10);
    const [match] = await app.infra.prisma.$queryRawUnsafe<{ matched_track_id: number }[]>(
      `SELECT matched_track_id FROM fingerprint_match WHERE upload_id = $1::uuid`,
      uploadId,
    );
    expect(match?.matched_track_id).toBe(101);
  });

  it('does not match a different generated piece', async () => {
    const fp = await fingerprintFile(other, { ffmpeg });
    expect(fp).not.toBeNull();
    expect(await findMatch(new FingerprintRepository(app.infra.prisma), app.infra.prisma, fp!, 103)).toBeNull();
    const step = new FingerprintStep(new FingerprintRepository(app.infra.prisma), ffmpeg, { info: () => undefined, warn: () => undefined });
    expect(await step.run({ trackId: 103, uploadId: randomUUID(), attempt: 1, file: other, durationSeconds: 20 })).toBe('stored');
    expect(await duplicateEvents(103)).toEqual([]);
    expect(await indexRows(103)).toBeGreaterThan(0);
  });

  it('gives a 2-s track no fingerprint, and the upload still finishes', { timeout: 60_000 }, async () => {
    const short = await generate('short.wav', piece(3, 2), ['-c:a', 'pcm_s16le']);
    const { uploadId } = await processAsUpload(104, short, 'wav');
    const processed = await app.infra.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbox_event WHERE type = 'media-processing.track.processed.v1' AND payload->'data'->>'uploadId' = $1`,
      uploadId,
    );
    expect(processed[0]?.n).toBe(1);
    expect(await app.infra.prisma.$queryRawUnsafe(`SELECT track_id FROM track_fingerprint WHERE track_id = 104`)).toEqual([]);
    expect(await indexRows(104)).toBe(0);
  });

  it('a retry of the step recomputes without duplicating index rows or the event', async () => {
    const [job] = await app.infra.prisma.$queryRawUnsafe<{ upload_id: string }[]>(`SELECT upload_id::text FROM jobs WHERE track_id = 102`);
    const rowsBefore = await indexRows(102);
    const step = new FingerprintStep(new FingerprintRepository(app.infra.prisma), ffmpeg, { info: () => undefined, warn: () => undefined });
    const upload = { trackId: 102, uploadId: job!.upload_id, attempt: 1, file: copy, durationSeconds: 15 };
    expect(await step.run(upload)).toBe('duplicate');
    expect(await step.run(upload)).toBe('duplicate');
    expect(await indexRows(102)).toBe(rowsBefore);
    expect(await duplicateEvents(102)).toHaveLength(1);
    const [count] = await app.infra.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM track_fingerprint WHERE track_id = 102`);
    expect(count?.n).toBe(1);
  });

  it('a fingerprint that cannot be computed is logged and counted; the step does not throw', async () => {
    const warnings: string[] = [];
    const step = new FingerprintStep(new FingerprintRepository(app.infra.prisma), path.join(workDir, 'no-such-ffmpeg'), {
      info: () => undefined,
      warn: (_o, msg) => warnings.push(msg),
    });
    expect(await step.run({ trackId: 105, uploadId: randomUUID(), attempt: 1, file: source, durationSeconds: 20 })).toBe('failed');
    expect(warnings).toEqual(['fingerprint failed; the upload goes on without it']);
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/media_fingerprint_runs_total\{outcome="failed"\} [1-9]/);
  });
});

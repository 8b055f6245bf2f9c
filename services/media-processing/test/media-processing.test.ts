import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '@msp/contracts';
import { startServiceTestEnv, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMediaProcessingConfig } from '../src/app.js';
import { probe, useMediaBinaries } from '../src/media/ffmpeg.js';

const execFileAsync = promisify(execFile);
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;
let workDir: string;

beforeAll(async () => {
  env = await startServiceTestEnv('media_processing', migrations);
  app = await buildApp(loadMediaProcessingConfig(env.env), { logger: false });
  await app.ready();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'media-processing-test-'));
});

afterAll(async () => {
  await app?.close();
  await env?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('TRK-6 / TRK-8 / TRK-9 media-processing worker shell', () => {
  it('answers /health', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'up', service: 'media-processing' });
  });

  it('is ready when the database, NATS, Redis, storage and ffmpeg all answer', async () => {
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'up',
      service: 'media-processing',
      checks: { database: 'up', nats: 'up', redis: 'up', storage: 'up', ffmpeg: 'up' },
    });
  });

  it('exposes no public /api route, but /metrics and an empty OpenAPI document', async () => {
    const api = await app.inject({ method: 'GET', url: '/api/tracks/1' });
    expect(api.statusCode).toBe(404);
    expect(ErrorResponseSchema.parse(api.json()).code).toBe('ROUTE_NOT_FOUND');
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('http_request_duration_seconds');
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths ?? {})).toEqual([]);
  });

  it('creates the Job table from its migration: one job per upload and attempt', async () => {
    const uploadId = '6f1c2a4e-1b7d-4c1e-9a43-0e5a2f3b9c10';
    const job = await app.infra.prisma.job.create({ data: { trackId: 7, uploadId, state: 'SUCCEEDED' } });
    expect(job).toMatchObject({ trackId: 7, attempt: 1, state: 'SUCCEEDED', runs: 0, lastError: null });
    await expect(app.infra.prisma.job.create({ data: { trackId: 8, uploadId, state: 'SUCCEEDED' } })).rejects.toThrow(/Unique constraint/);
    await app.infra.prisma.job.create({ data: { trackId: 7, uploadId, attempt: 2, state: 'SUCCEEDED' } });
  });
});

describe('ffmpeg binaries', () => {
  it('probes a generated 1-second sine WAV with the resolved ffprobe', async () => {
    const wav = path.join(workDir, 'sine.wav');
    await execFileAsync(app.media.ffmpeg.path, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-y', wav]);
    const data = await probe(wav);
    expect(Number(data.format.duration)).toBeCloseTo(1, 2);
    expect(data.format.format_name).toBe('wav');
    expect(data.streams).toHaveLength(1);
    expect(data.streams[0]).toMatchObject({ codec_type: 'audio', sample_rate: 44100 });
  });

  it('rejects a file that is not audio', async () => {
    const text = path.join(workDir, 'notes.wav');
    await writeFile(text, 'this is not audio');
    await expect(probe(text)).rejects.toThrow();
  });

  it('is not ready when ffprobe cannot run', async () => {
    const broken = await buildApp(loadMediaProcessingConfig({ ...env.env, FFPROBE_PATH: path.join(workDir, 'missing-ffprobe') }), { logger: false });
    try {
      const res = await broken.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        checks: { database: 'up', nats: 'up', redis: 'up', storage: 'up', ffmpeg: 'down' },
      });
    } finally {
      await broken.close();
      // fluent-ffmpeg keeps its paths process-wide: give them back to the main app.
      useMediaBinaries(app.media);
    }
  });
});

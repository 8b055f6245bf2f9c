/**
 * Media processing and upload streaming (a benchmark, not a test).
 *
 *   npx tsx bench/media-processing.ts
 *   taskset -c 0 npx tsx bench/media-processing.ts --processing-only    (one core: docs/sound.md)
 *
 * 1. Processing time ÷ audio duration for a 3-minute and a 10-minute track (44.1 kHz stereo WAV)
 *    on one worker: the whole job (download from storage, probe, one decode feeding the progressive
 *    file, the 64/128/256 kbps HLS ladder, the loudness measurement and the waveform; master
 *    playlist, preview, uploads). Reported as wall time and as ffmpeg's CPU time (user + system of
 *    the finished child processes, from /proc/self/stat), both ÷ duration: on a shared machine the
 *    CPU figure is the one that does not depend on the neighbours. Goal ≤ 0.06 on one core
 *    (with the fingerprint step). `--processing-only` runs the 3-minute track only and skips 2.
 * 2. Peak resident memory of a catalog process (a child `tsx src/server.ts`, sampled from /proc
 *    every 20 ms) while it streams a 150 MB multipart upload into object storage, above its idle
 *    figure. Goal < 100 MB. The upload then goes through the real probe by media-processing.
 * Everything runs on private infrastructure (database, nats-server, s3rver) like the tests.
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase, freePort, startNatsServer, startS3rver, testInfra } from '../packages/testing/src/index.ts';
import { ObjectStorage } from '../packages/storage/src/index.ts';
import { resolveMediaBinaries } from '../services/media-processing/src/media/ffmpeg.ts';
import { processUpload } from '../services/media-processing/src/media/pipeline.ts';
import { buildApp as buildMedia, loadMediaProcessingConfig } from '../services/media-processing/src/app.ts';

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const MB = 1024 * 1024;

/** RSS of a process and its descendants (tsx runs the server in a child node process). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const own = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean).map(Number);
  const sizes = await Promise.all(children.map((child) => rssOf(child)));
  return own + sizes.reduce((a, b) => a + b, 0);
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

const processingOnly = process.argv.includes('--processing-only');

/** CPU seconds (user + system) of this process's waited-for children: ffmpeg and ffprobe runs. */
async function childCpuSeconds(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; cutime and cstime are 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  return ticks / 100; // USER_HZ is 100 on Linux
}

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-media-'));
  const [nats, s3] = await Promise.all([startNatsServer(), startS3rver()]);
  const binaries = await resolveMediaBinaries({});
  const storage = new ObjectStorage({ endpoint: s3.endpoint, region: 'us-east-1', accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: 'bench-media' });
  await storage.ensureBucket();
  const lines: string[] = [];
  try {
    // ── 1. processing ratio ──
    for (const minutes of processingOnly ? [3] : [3, 10]) {
      const seconds = minutes * 60;
      const wav = path.join(dir, `${minutes}min.wav`);
      await execFileAsync(binaries.ffmpeg.path, [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        `aevalsrc=exprs='0.6*sin(220*2*PI*t)*(0.6+0.4*sin(2*PI*t/9))|0.6*sin(330*2*PI*t)*(0.6+0.4*sin(2*PI*t/5))':s=44100:d=${seconds}`,
        '-y',
        wav,
      ]);
      const key = `uploads/${randomUUID()}/original`;
      await storage.putStream(key, createReadStream(wav), 'application/octet-stream');
      const cpuBefore = await childCpuSeconds();
      const started = performance.now();
      const out = await processUpload(
        { trackId: minutes, uploadId: randomUUID(), attempt: 1, originalKey: key, coverKey: null, publicId: randomUUID() },
        { binaries, storage, scratchRoot: dir, maxDurationSeconds: 10_800, signal: new AbortController().signal, progress: async () => undefined },
      );
      const elapsed = (performance.now() - started) / 1000;
      const cpu = (await childCpuSeconds()) - cpuBefore;
      const line =
        `${minutes}-minute track (${((await stat(wav)).size / MB) | 0} MB WAV): processed in ${elapsed.toFixed(2)} s, ratio ${(elapsed / out.durationSeconds).toFixed(4)}; ` +
        `ffmpeg CPU ${cpu.toFixed(2)} s, ratio ${(cpu / out.durationSeconds).toFixed(4)} (goal ≤ 0.06 on one core); loudness ${JSON.stringify({ ...out.loudness, shortTerm: undefined })}`;
      console.log(line);
      lines.push(line);
      await rm(wav);
    }

    if (processingOnly) return;
    // ── 2. catalog memory while streaming a 150 MB upload ──
    const [catalogDb, mediaDb] = await Promise.all([
      createTestDatabase('bench_catalog', path.join(root, 'services/catalog/prisma/migrations')),
      createTestDatabase('bench_media', path.join(root, 'services/media-processing/prisma/migrations')),
    ]);
    const [catalogPort, mediaPort] = [await freePort(), await freePort()];
    const common = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      NATS_URL: nats.url,
      REDIS_URL: testInfra().redisUrl,
      DB_AUTO_MIGRATE: 'false',
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      CATALOG_URL: `http://127.0.0.1:${catalogPort}`,
      MEDIA_PROCESSING_URL: `http://127.0.0.1:${mediaPort}`,
    };
    const media = await buildMedia(loadMediaProcessingConfig({ ...common, DATABASE_URL: mediaDb.url, PORT: String(mediaPort) }), { logger: false });
    await media.listen({ port: mediaPort, host: '127.0.0.1' });
    const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['src/server.ts'], {
      cwd: path.join(root, 'services/catalog'),
      env: { ...process.env, ...common, DATABASE_URL: catalogDb.url, PORT: String(catalogPort), AUDIO_MAX_BYTES: String(200 * MB), UPLOAD_WAIT_MS: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    try {
      await waitForHttp(`http://127.0.0.1:${catalogPort}/health`, 30_000);
      const big = path.join(dir, 'big.wav');
      // 150 MB of 44.1 kHz stereo 16-bit PCM ≈ 891 s.
      await execFileAsync(binaries.ffmpeg.path, [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=300:sample_rate=44100:duration=891',
        '-ac',
        '2',
        '-y',
        big,
      ]);
      const size = (await stat(big)).size;
      // Let the child settle (JIT, first requests) before measuring idle.
      for (let i = 0; i < 5; i++) await fetch(`http://127.0.0.1:${catalogPort}/health`);
      await new Promise((r) => setTimeout(r, 1500));
      const idle = await rssOf(child.pid!);
      let peak = idle;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssOf(child.pid!).catch(() => 0));
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const form = new FormData();
      form.append('title', 'Big upload');
      form.append('genre', 'Bench');
      form.append('uploadId', randomUUID());
      form.append('audioFile', await openAsBlob(big), 'big.wav');
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${catalogPort}/api/tracks/upload/v2`, {
        method: 'POST',
        headers: { 'x-user-id': '1', 'x-user-tier': 'PRO' },
        body: form,
      });
      const elapsed = (performance.now() - started) / 1000;
      sampling = false;
      await sampler;
      const body = await res.text();
      const line = `catalog streaming a ${(size / MB).toFixed(0)} MB upload: HTTP ${res.status} in ${elapsed.toFixed(1)} s; RSS idle ${(idle / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB, +${((peak - idle) / MB).toFixed(0)} MB above idle (goal < 100 MB)`;
      console.log(line);
      if (res.status !== 201) console.log(body);
      lines.push(line);
    } finally {
      child.kill('SIGTERM');
      await media.close();
      await Promise.allSettled([catalogDb.drop(), mediaDb.drop()]);
    }
  } finally {
    await Promise.allSettled([nats.close(), s3.close()]);
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\n${lines.join('\n')}`);
}

await main();
process.exit(0);

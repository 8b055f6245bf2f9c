import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { register } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStorage } from '@msp/storage';
import { startS3rver, type S3rverHandle } from '@msp/testing';
import { resolveMediaBinaries, type MediaBinaries } from '../src/media/ffmpeg.js';
import { processUpload, type PipelineOutput } from '../src/media/pipeline.js';

/**
 * The processing run on awkward sources (docs/sound.md "Bad input"): every one finishes, with its
 * loudness measured on the original and the adaptive HLS ladder written; a failed measurement
 * leaves the field null and is counted, never fails the upload.
 */
const execFileAsync = promisify(execFile);

let s3: S3rverHandle;
let storage: ObjectStorage;
let binaries: MediaBinaries;
let dir: string;

beforeAll(async () => {
  s3 = await startS3rver();
  storage = new ObjectStorage({ endpoint: s3.endpoint, region: 'us-east-1', accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: 'sound-test' });
  await storage.ensureBucket();
  binaries = await resolveMediaBinaries({});
  dir = await mkdtemp(path.join(os.tmpdir(), 'sound-test-'));
});

afterAll(async () => {
  await s3?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A lavfi source written as WAV (`codec` pcm_s16le unless said) and stored as an upload's original. */
async function original(name: string, lavfi: string, extra: string[] = []): Promise<string> {
  const file = path.join(dir, `${name}.wav`);
  await execFileAsync(binaries.ffmpeg.path, ['-hide_banner', '-v', 'error', '-f', 'lavfi', '-i', lavfi, ...extra, '-y', file]);
  const key = `uploads/${randomUUID()}/original`;
  await storage.putStream(key, createReadStream(file), 'application/octet-stream');
  return key;
}

async function run(originalKey: string, withBinaries = binaries): Promise<PipelineOutput> {
  return processUpload(
    { trackId: 1, uploadId: randomUUID(), attempt: 1, originalKey, coverKey: null, publicId: randomUUID() },
    { binaries: withBinaries, storage, scratchRoot: dir, maxDurationSeconds: 600, signal: new AbortController().signal, progress: async () => undefined },
  );
}

async function text(key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The ladder as written: master variants, and each rung's segment durations. */
async function ladder(out: PipelineOutput) {
  const master = await text(out.hlsPlaylistKey);
  const variants = [...master.matchAll(/#EXT-X-STREAM-INF:BANDWIDTH=(\d+),AVERAGE-BANDWIDTH=(\d+),CODECS="([^"]+)"\n(\S+)/g)].map((m) => ({
    bandwidth: Number(m[1]),
    average: Number(m[2]),
    codecs: m[3],
    uri: m[4]!,
  }));
  const rungs = await Promise.all(
    variants.map(async (v) => [...(await text(`${out.hlsPrefix}${v.uri}`)).matchAll(/#EXTINF:([\d.]+)/g)].map((m) => Number(m[1]))),
  );
  return { variants, rungs };
}

async function probeStream(key: string): Promise<{ channels: number; sample_rate: string }> {
  const file = path.join(dir, `${randomUUID()}.m4a`);
  await writeFile(file, Buffer.from(await (await storage.get(key)).toArray().then((c) => Buffer.concat(c as Buffer[]))));
  const { stdout } = await execFileAsync(binaries.ffprobe.path, ['-v', 'error', '-print_format', 'json', '-show_streams', file]);
  return (JSON.parse(stdout) as { streams: { channels: number; sample_rate: string }[] }).streams[0]!;
}

async function failures(): Promise<number> {
  const metric = await register.getSingleMetric('media_measurement_failures_total')?.get();
  return metric?.values.find((v) => v.labels.measurement === 'loudness')?.value ?? 0;
}

describe('sound at ingest: loudness and the HLS ladder on awkward sources', () => {
  it('measures a stereo track and writes three aligned rungs in ascending bandwidth', async () => {
    const out = await run(await original('stereo', "aevalsrc=exprs='0.25*sin(440*2*PI*t)|0.25*sin(440*2*PI*t)':s=44100:d=20"));
    // BS.1770: −0.691 + 10·log10(2 channels × 0.25²/2) = −12.7 LUFS; a steady tone has no range; peak −12 dBTP.
    expect(out.loudness!.integratedLufs!).toBeCloseTo(-12.7, 0);
    expect(out.loudness!.rangeLu).toBe(0);
    expect(out.loudness!.truePeakDbtp!).toBeCloseTo(-12, 0);
    expect(out.loudness!.shortTerm).toHaveLength(20);
    expect(out.loudness!.shortTerm[10]!).toBeCloseTo(-12.7, 0);
    const { variants, rungs } = await ladder(out);
    expect(variants.map((v) => v.uri)).toEqual(['aac_64k.m3u8', 'aac_128k.m3u8', 'aac_256k.m3u8']);
    expect(variants.map((v) => v.codecs)).toEqual(['mp4a.40.2', 'mp4a.40.2', 'mp4a.40.2']);
    expect(variants[0]!.bandwidth).toBeLessThan(variants[1]!.bandwidth);
    expect(variants[1]!.bandwidth).toBeLessThan(variants[2]!.bandwidth);
    for (const v of variants) expect(v.average).toBeLessThanOrEqual(v.bandwidth);
    // Same segment times in every rung, adding up to the duration.
    expect(rungs[1]).toEqual(rungs[0]);
    expect(rungs[2]).toEqual(rungs[0]);
    expect(Math.abs(rungs[0]!.reduce((a, b) => a + b, 0) - 20)).toBeLessThan(0.1);
  });

  it('finishes digital silence with no integrated loudness and no true peak', async () => {
    const out = await run(await original('silence', 'anullsrc=r=44100:cl=stereo', ['-t', '10']));
    expect(out.loudness).toMatchObject({ integratedLufs: null, truePeakDbtp: null });
    expect(out.loudness!.shortTerm.every((s) => s === null)).toBe(true);
    expect(out.durationSeconds).toBeCloseTo(10, 0);
  });

  it('finishes a 2-second track', async () => {
    const out = await run(await original('short', 'sine=frequency=440:sample_rate=44100:duration=2', ['-ac', '2']));
    expect(out.loudness!.integratedLufs).not.toBeNull();
    expect(out.loudness!.shortTerm.length).toBeLessThanOrEqual(2);
    const { variants, rungs } = await ladder(out);
    expect(variants).toHaveLength(3);
    expect(Math.abs(rungs[0]!.reduce((a, b) => a + b, 0) - 2)).toBeLessThan(0.1);
  });

  it('measures a clipped master at about +6 dBTP', async () => {
    const out = await run(await original('clipped', "aevalsrc=exprs='2*sin(997*2*PI*t)|2*sin(997*2*PI*t)':s=44100:d=8", ['-c:a', 'pcm_f32le']));
    expect(out.loudness!.truePeakDbtp!).toBeGreaterThan(5.5);
    expect(out.loudness!.truePeakDbtp!).toBeLessThan(6.6);
  });

  it('finishes mono, 5.1 and 96 kHz sources with stereo-at-most, 48-kHz-at-most renditions', async () => {
    const sources = {
      mono: await original('mono', 'sine=frequency=440:sample_rate=44100:duration=8'),
      surround: await original(
        'surround',
        "aevalsrc=exprs='0.2*sin(440*2*PI*t)|0.2*sin(550*2*PI*t)|0.2*sin(660*2*PI*t)|0.1*sin(50*2*PI*t)|0.1*sin(770*2*PI*t)|0.1*sin(880*2*PI*t)':c=5.1:s=48000:d=8",
      ),
      hires: await original('hires', 'sine=frequency=440:sample_rate=96000:duration=8', ['-ac', '2']),
    };
    for (const [name, key] of Object.entries(sources)) {
      const out = await run(key);
      expect(out.loudness?.integratedLufs, name).not.toBeNull();
      const stream = await probeStream(out.progressiveKey);
      expect(stream.channels, name).toBeLessThanOrEqual(2);
      expect(Number(stream.sample_rate), name).toBeLessThanOrEqual(48_000);
      const { variants, rungs } = await ladder(out);
      expect(variants, name).toHaveLength(3);
      expect(rungs[2], name).toEqual(rungs[0]);
      expect(Math.abs(rungs[0]!.reduce((a, b) => a + b, 0) - 8), name).toBeLessThan(0.1);
    }
  });

  it('finishes without loudness (null, counted) when the measurement fails', async () => {
    // An ffmpeg that refuses any command with the measurement in it and runs every other one.
    const wrapper = path.join(dir, 'ffmpeg-without-ebur128');
    await writeFile(wrapper, `#!/bin/sh\ncase "$*" in *ebur128*) echo "no ebur128 here" >&2; exit 1;; esac\nexec "${binaries.ffmpeg.path}" "$@"\n`);
    await chmod(wrapper, 0o755);
    const before = await failures();
    const out = await run(await original('unmeasured', 'sine=frequency=440:sample_rate=44100:duration=4', ['-ac', '2']), {
      ...binaries,
      ffmpeg: { path: wrapper, source: 'config' },
    });
    expect(out.loudness).toBeNull();
    expect(out.durationSeconds).toBeCloseTo(4, 0);
    expect((await ladder(out)).variants).toHaveLength(3);
    expect(await failures()).toBe(before + 1);
  });
});

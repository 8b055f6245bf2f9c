import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage } from '@msp/storage';
import type { MediaBinaries } from './ffmpeg.js';
import { runMedia } from './run.js';
import { WAVEFORM_POINTS, WAVEFORM_SAMPLE_RATE, WaveformBuilder } from './waveform.js';

/** The input is not decodable audio: running again cannot help, the track ends FAILED at once. */
export class UndecodableMediaError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UndecodableMediaError';
  }
}

export interface PipelineInput {
  trackId: number;
  uploadId: string;
  attempt: number;
  originalKey: string;
  coverKey: string | null;
  /** Random name of the public assets (waveform, cover). */
  publicId: string;
}

export interface PipelineOutput {
  durationSeconds: number;
  progressiveKey: string;
  hlsPlaylistKey: string;
  hlsPrefix: string;
  previewKey: string;
  waveformJsonKey: string;
  waveformKey: string;
  coverKey: string | null;
}

export interface PipelineContext {
  binaries: MediaBinaries;
  /** The bucket the upload event names (catalog's). */
  storage: ObjectStorage;
  scratchRoot: string;
  /** Audio longer than this is refused (catalog refuses it at upload already when the header says so). */
  maxDurationSeconds: number;
  signal: AbortSignal;
  /** Reports an API.md §4 UploadStep; awaited, so steps reach catalog in order. */
  progress: (stepName: string, progress: number) => Promise<void>;
  logger?: { warn(obj: object, msg: string): void };
}

/** R4: progressive AAC in MP4 at 256 kbps; HLS AAC 128 kbps in 6-s segments; 30-s preview. */
const PROGRESSIVE_KBPS = '256k';
const HLS_KBPS = '128k';
const HLS_SEGMENT_SECONDS = '6';
const PREVIEW_SECONDS = '30';
const COVER_SIZE = 500;
/** No single ffmpeg run may hang a job forever (a 10-minute track transcodes in well under a minute). */
const COMMAND_TIMEOUT_MS = 15 * 60_000;

/** The native encoder's fast coder: several times faster than the default two-loop search at these bitrates. */
const AAC = ['-c:a', 'aac', '-aac_coder', 'fast'];

export function outputKeys(input: Pick<PipelineInput, 'trackId' | 'uploadId' | 'attempt' | 'publicId'>) {
  const base = `tracks/${input.trackId}/${input.uploadId}-${input.attempt}/`;
  return {
    base,
    progressiveKey: `${base}full.m4a`,
    previewKey: `${base}preview.m4a`,
    hlsPrefix: `${base}hls/`,
    hlsPlaylistKey: `${base}hls/index.m3u8`,
    waveformKey: `public/${input.publicId}/waveform.json`,
    waveformJsonKey: `public/${input.publicId}/audiowaveform.json`,
    coverKey: `public/${input.publicId}/cover.jpg`,
  };
}

interface ProbeSummary {
  durationSeconds: number;
  audioStreams: number;
}

interface FfprobeJson {
  format?: { duration?: string };
  streams?: Array<{ codec_type?: string; duration?: string }>;
}

async function probeFile(binaries: MediaBinaries, file: string, signal: AbortSignal): Promise<ProbeSummary> {
  const out = await runMedia(binaries.ffprobe.path, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
    signal,
    timeoutMs: 60_000,
  });
  const data = JSON.parse(out) as FfprobeJson;
  const audio = (data.streams ?? []).filter((s) => s.codec_type === 'audio');
  const duration = Number(data.format?.duration ?? audio[0]?.duration ?? NaN);
  return { durationSeconds: Number.isFinite(duration) ? duration : 0, audioStreams: audio.length };
}

const CONTENT_TYPES: Record<string, string> = {
  '.m4a': 'audio/mp4',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.json': 'application/json',
  '.jpg': 'image/jpeg',
};

async function upload(storage: ObjectStorage, key: string, file: string): Promise<void> {
  const size = (await stat(file)).size;
  await storage.put(key, createReadStream(file), CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', size);
}

/**
 * One run of the processing of an upload: download, probe, transcode (progressive + HLS in
 * parallel, PCM for the waveform from the HLS run's decode), preview, waveform, cover; everything is
 * written under keys derived from upload and attempt, so a second run overwrites the first.
 * Scratch files are removed whatever happens.
 */
export async function processUpload(input: PipelineInput, ctx: PipelineContext): Promise<PipelineOutput> {
  const { binaries, storage, signal } = ctx;
  const keys = outputKeys(input);
  const dir = await mkdtemp(path.join(ctx.scratchRoot, `msp-job-${input.trackId}-`));
  try {
    await ctx.progress('Processing started', 20);
    const original = path.join(dir, 'original');
    await pipeline(await storage.get(input.originalKey), createWriteStream(original), { signal });

    await ctx.progress('Extracting audio duration', 25);
    let probed: ProbeSummary;
    try {
      probed = await probeFile(binaries, original, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new UndecodableMediaError('ffprobe could not read the audio', { cause: err });
    }
    if (probed.audioStreams < 1) throw new UndecodableMediaError('no audio stream');
    if (probed.durationSeconds > ctx.maxDurationSeconds) {
      throw new UndecodableMediaError(`the audio is longer than the ${ctx.maxDurationSeconds}-s limit`);
    }
    // Whatever a header claims, never decode more than the limit (an input option: both outputs).
    const limit = ['-t', String(ctx.maxDurationSeconds)];
    await ctx.progress('Duration extracted', 30);

    await ctx.progress('Transcoding audio', 40);
    const full = path.join(dir, 'full.m4a');
    const hlsDir = path.join(dir, 'hls');
    await mkdir(hlsDir);
    const waveform = new WaveformBuilder();
    // The first audio stream of the original, decoded at most `limit`, encoded as AAC (the two renditions differ after this).
    const encodeAac = ['-hide_banner', '-nostdin', '-v', 'error', ...limit, '-i', original, '-map', '0:a:0', '-vn', ...AAC];
    const progressive = runMedia(binaries.ffmpeg.path, [...encodeAac, '-b:a', PROGRESSIVE_KBPS, '-movflags', '+faststart', '-f', 'mp4', '-y', full], {
      signal,
      timeoutMs: COMMAND_TIMEOUT_MS,
    });
    const hls = runMedia(
      binaries.ffmpeg.path,
      [
        ...encodeAac,
        '-b:a',
        HLS_KBPS,
        '-f',
        'hls',
        '-hls_time',
        HLS_SEGMENT_SECONDS,
        '-hls_playlist_type',
        'vod',
        '-hls_list_size',
        '0',
        '-hls_segment_filename',
        path.join(hlsDir, 'seg_%04d.ts'),
        '-y',
        path.join(hlsDir, 'index.m3u8'),
        // The waveform's PCM comes from this decode: the 128 kbps encode is the lighter of the two.
        '-map',
        '0:a:0',
        '-vn',
        '-ac',
        '1',
        '-ar',
        String(WAVEFORM_SAMPLE_RATE),
        '-f',
        's16le',
        'pipe:1',
      ],
      { signal, timeoutMs: COMMAND_TIMEOUT_MS, onStdout: (stdout) => waveform.consume(stdout) },
    );
    const results = await Promise.allSettled([progressive, hls]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      if (signal.aborted) throw failed.reason;
      throw new UndecodableMediaError('the audio could not be decoded', { cause: failed.reason });
    }
    const durationSeconds = (await probeFile(binaries, full, signal)).durationSeconds || probed.durationSeconds;
    if (!(durationSeconds > 0) || waveform.pixels === 0) throw new UndecodableMediaError('the audio decoded to nothing');

    await ctx.progress('Generating preview', 60);
    const preview = path.join(dir, 'preview.m4a');
    await runMedia(
      binaries.ffmpeg.path,
      ['-hide_banner', '-nostdin', '-v', 'error', '-i', full, '-t', PREVIEW_SECONDS, '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', '-y', preview],
      { signal, timeoutMs: COMMAND_TIMEOUT_MS },
    );
    await upload(storage, keys.progressiveKey, full);
    await upload(storage, keys.previewKey, preview);
    for (const name of await readdir(hlsDir)) await upload(storage, `${keys.hlsPrefix}${name}`, path.join(hlsDir, name));

    await ctx.progress('Generating waveform', 70);
    const peaks = waveform.toPeaks(WAVEFORM_POINTS);
    await storage.put(keys.waveformKey, JSON.stringify(peaks), 'application/json');
    await storage.put(keys.waveformJsonKey, JSON.stringify(waveform.toAudiowaveform()), 'application/json');
    await ctx.progress('Waveform data uploaded', 80);

    let coverKey: string | null = null;
    if (input.coverKey) {
      await ctx.progress('Uploading cover image', 90);
      coverKey = await resizeCover(input.coverKey, keys.coverKey, dir, ctx);
    } else {
      await ctx.progress('No cover provided', 90);
    }
    return {
      durationSeconds,
      progressiveKey: keys.progressiveKey,
      hlsPlaylistKey: keys.hlsPlaylistKey,
      hlsPrefix: keys.hlsPrefix,
      previewKey: keys.previewKey,
      waveformJsonKey: keys.waveformJsonKey,
      waveformKey: keys.waveformKey,
      coverKey,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Square 500×500 JPEG (centre crop). A cover ffmpeg cannot read leaves the track without one. */
async function resizeCover(sourceKey: string, targetKey: string, dir: string, ctx: PipelineContext): Promise<string | null> {
  const source = path.join(dir, 'cover-source');
  const target = path.join(dir, 'cover.jpg');
  try {
    await pipeline(await ctx.storage.get(sourceKey), createWriteStream(source), { signal: ctx.signal });
    await runMedia(
      ctx.binaries.ffmpeg.path,
      [
        '-hide_banner',
        '-nostdin',
        '-v',
        'error',
        '-i',
        source,
        '-frames:v',
        '1',
        '-vf',
        `scale=${COVER_SIZE}:${COVER_SIZE}:force_original_aspect_ratio=increase,crop=${COVER_SIZE}:${COVER_SIZE}`,
        '-q:v',
        '3',
        '-f',
        'image2',
        '-y',
        target,
      ],
      { signal: ctx.signal, timeoutMs: 60_000 },
    );
    await upload(ctx.storage, targetKey, target);
    return targetKey;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.logger?.warn({ err, sourceKey }, 'cover could not be resized; track kept without cover');
    return null;
  }
}

export function defaultScratchRoot(configured: string | undefined): string {
  return configured ?? os.tmpdir();
}

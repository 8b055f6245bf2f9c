import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage } from '@msp/storage';
import { PcmFingerprint, type ComputedFingerprint } from '../fingerprint/fingerprint.js';
import { SAMPLE_RATE as FINGERPRINT_SAMPLE_RATE } from '../fingerprint/chromaprint.js';
import { jobMetrics } from '../jobs/metrics.js';
import type { MediaBinaries } from './ffmpeg.js';
import { hlsOptions, LADDER, masterPlaylist, rungStats, type Rung } from './hls-ladder.js';
import { loudnessFilter, readLoudness, type LoudnessMeasurement } from './loudness.js';
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
  /** Null when the measurement failed (logged and counted; the track finishes without it). */
  loudness: LoudnessMeasurement | null;
}

export interface PipelineContext {
  binaries: MediaBinaries;
  /** The bucket the upload event names (catalog's). */
  storage: ObjectStorage;
  scratchRoot: string;
  /** Audio longer than this is refused (catalog refuses it at upload already when the header says so). */
  maxDurationSeconds: number;
  signal: AbortSignal;
  /** Reports an UploadStep (docs/api.md "Enums"); awaited, so steps reach catalog in order. */
  progress: (stepName: string, progress: number) => Promise<void>;
  logger?: { warn(obj: object, msg: string): void };
  /**
   * The fingerprint step (src/fingerprint/), called once the audio is known to decode, with the
   * fingerprint the transcode computed from its own decode; it never fails the run. When set, the
   * transcode also writes the PCM Chromaprint reads.
   */
  fingerprint?: (original: string, durationSeconds: number, computed?: ComputedFingerprint) => Promise<void>;
}

/** R4: progressive AAC in MP4 at 256 kbps (the ladder's top rung, same encode); adaptive HLS (hls-ladder.ts); 30-s preview. */
const PROGRESSIVE_RUNG = LADDER[LADDER.length - 1]!;
const PREVIEW_SECONDS = '30';
const COVER_SIZE = 500;
/** Renditions are stereo at most 48 kHz (a 5.1 or 96 kHz master is downmixed/resampled for them, not for the measurement). */
const MAX_RENDITION_RATE = 48_000;
/** No single ffmpeg run may hang a job forever (a 10-minute track transcodes in well under a minute). */
const COMMAND_TIMEOUT_MS = 15 * 60_000;

/** The native encoder's fast coder: several times faster than the default two-loop search at these bitrates. */
const AAC = ['-c:a', 'aac', '-aac_coder', 'fast'];

/** Scratch paths go into filter graphs and tee specifications unescaped. */
const SAFE_PATH = /^[\w./-]+$/;

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
  /** Of the first audio stream (0 when ffprobe does not say). */
  channels: number;
  sampleRate: number;
}

interface FfprobeJson {
  format?: { duration?: string };
  streams?: Array<{ codec_type?: string; duration?: string; channels?: number; sample_rate?: string }>;
}

async function probeFile(binaries: MediaBinaries, file: string, signal: AbortSignal): Promise<ProbeSummary> {
  const out = await runMedia(binaries.ffprobe.path, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
    signal,
    timeoutMs: 60_000,
  });
  const data = JSON.parse(out) as FfprobeJson;
  const audio = (data.streams ?? []).filter((s) => s.codec_type === 'audio');
  const duration = Number(data.format?.duration ?? audio[0]?.duration ?? NaN);
  return {
    durationSeconds: Number.isFinite(duration) ? duration : 0,
    audioStreams: audio.length,
    channels: Number(audio[0]?.channels ?? 0) || 0,
    sampleRate: Number(audio[0]?.sample_rate ?? 0) || 0,
  };
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
 * One run of the processing of an upload, one function per step: download, probe, transcode (ONE
 * decode of the original feeds the progressive file, the HLS ladder, the loudness measurement and
 * the waveform's PCM), ladder (master playlist), preview, uploads, waveform, cover. Everything is
 * written under keys derived from upload and attempt, so a second run overwrites the first and
 * recomputes everything once. Scratch files are removed whatever happens.
 */
export async function processUpload(input: PipelineInput, ctx: PipelineContext): Promise<PipelineOutput> {
  const keys = outputKeys(input);
  const dir = await mkdtemp(path.join(ctx.scratchRoot, `msp-job-${input.trackId}-`));
  try {
    await ctx.progress('Processing started', 20);
    const original = await downloadOriginal(input, dir, ctx);

    await ctx.progress('Extracting audio duration', 25);
    const source = await probeOriginal(original, ctx);
    await ctx.progress('Duration extracted', 30);

    await ctx.progress('Transcoding audio', 40);
    const encoded = await transcode(original, source, dir, ctx);
    const durationSeconds = (await probeFile(ctx.binaries, encoded.full, ctx.signal)).durationSeconds || source.durationSeconds;
    if (!(durationSeconds > 0) || encoded.waveform.pixels === 0) throw new UndecodableMediaError('the audio decoded to nothing');
    const loudness = await measuredLoudness(encoded.loudnessFile, input, ctx);
    await writeMasterPlaylist(encoded.hlsDir);
    // The original's fingerprint, once the audio is known to decode (an undecodable upload fails above).
    await ctx.fingerprint?.(original, source.durationSeconds, encoded.fingerprint);

    await ctx.progress('Generating preview', 60);
    const preview = await cutPreview(encoded.full, dir, ctx);
    await upload(ctx.storage, keys.progressiveKey, encoded.full);
    await upload(ctx.storage, keys.previewKey, preview);
    for (const name of await readdir(encoded.hlsDir)) await upload(ctx.storage, `${keys.hlsPrefix}${name}`, path.join(encoded.hlsDir, name));

    await ctx.progress('Generating waveform', 70);
    await storeWaveform(encoded.waveform, keys, ctx);
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
      loudness,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function downloadOriginal(input: PipelineInput, dir: string, ctx: PipelineContext): Promise<string> {
  const original = path.join(dir, 'original');
  await pipeline(await ctx.storage.get(input.originalKey), createWriteStream(original), { signal: ctx.signal });
  return original;
}

async function probeOriginal(original: string, ctx: PipelineContext): Promise<ProbeSummary> {
  let probed: ProbeSummary;
  try {
    probed = await probeFile(ctx.binaries, original, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw new UndecodableMediaError('ffprobe could not read the audio', { cause: err });
  }
  if (probed.audioStreams < 1) throw new UndecodableMediaError('no audio stream');
  if (probed.durationSeconds > ctx.maxDurationSeconds) {
    throw new UndecodableMediaError(`the audio is longer than the ${ctx.maxDurationSeconds}-s limit`);
  }
  return probed;
}

interface Encoded {
  full: string;
  hlsDir: string;
  waveform: WaveformBuilder;
  /** ebur128's metadata, or null when the run went without the measurement. */
  loudnessFile: string | null;
  /** Chromaprint's fingerprint of the same decode (only when the run has a fingerprint step). */
  fingerprint?: ComputedFingerprint;
}

/** What the renditions need of the decoded original: stereo at most, 48 kHz at most. */
function renditionFormat(source: ProbeSummary): string {
  const filters: string[] = [];
  if (source.sampleRate > MAX_RENDITION_RATE) filters.push(`aresample=${MAX_RENDITION_RATE}`);
  if (source.channels > 2) filters.push('aformat=channel_layouts=stereo');
  return filters.length > 0 ? filters.join(',') : 'anull';
}

/** `-hls_*` options of a rung's own HLS output. */
function hlsArgs(dir: string, rung: Rung): string[] {
  return [...Object.entries(hlsOptions(dir, rung)).flatMap(([k, v]) => [`-${k}`, v]), '-f', 'hls', '-y', path.join(dir, `${rung.name}.m3u8`)];
}

/**
 * The transcode: the first audio stream of the original, decoded once (at most `maxDurationSeconds`
 * of it, whatever a header claims) and split in the filter graph into the analysis branch
 * (loudness.ts), the waveform's mono 8 kHz PCM (stdout), the fingerprint's mono 11,025 Hz PCM (pipe
 * 3, read by Chromaprint as it comes) and the renditions: each rung of the ladder encoded once, the
 * top one written both as the progressive MP4 and as its HLS rung (tee).
 * Every rung encodes the same samples with the same AAC frame size, so the HLS muxers cut their
 * 6-s segments at the same frames. When the run fails with the measurement, it runs once more
 * without it: a measurement never fails an upload.
 */
async function transcode(original: string, source: ProbeSummary, dir: string, ctx: PipelineContext): Promise<Encoded> {
  const full = path.join(dir, 'full.m4a');
  const hlsDir = path.join(dir, 'hls');
  await mkdir(hlsDir);
  if (!SAFE_PATH.test(dir)) throw new Error(`the scratch folder ${dir} has characters ffmpeg's graph syntax would read (use letters, digits, . _ - /)`);
  const loudnessFile = path.join(dir, 'loudness.txt');
  try {
    return await transcodeOnce(original, source, { full, hlsDir, loudnessFile }, ctx);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    await rm(hlsDir, { recursive: true, force: true });
    await mkdir(hlsDir);
    const encoded = await transcodeOnce(original, source, { full, hlsDir, loudnessFile: null }, ctx);
    // Only now is it the measurement that failed (an undecodable original fails both runs).
    jobMetrics.measurementFailures.inc({ measurement: 'loudness' });
    ctx.logger?.warn({ err }, 'the transcode failed with the loudness measurement and succeeded without it; the track finishes without loudness');
    return encoded;
  }
}

async function transcodeOnce(
  original: string,
  source: ProbeSummary,
  out: { full: string; hlsDir: string; loudnessFile: string | null },
  ctx: PipelineContext,
): Promise<Encoded> {
  const waveform = new WaveformBuilder();
  const fingerprint = ctx.fingerprint ? new PcmFingerprint() : null;
  const rungs = LADDER.map((rung, i) => ({ rung, label: `r${i}` }));
  const branches = ['wave', 'mix', ...(out.loudnessFile ? ['loud'] : []), ...(fingerprint ? ['fp'] : [])];
  const graph = [
    `[0:a:0]asplit=${branches.length}${branches.map((b) => `[${b}]`).join('')}`,
    `[mix]${renditionFormat(source)},asplit=${rungs.length}${rungs.map((r) => `[${r.label}]`).join('')}`,
    ...(out.loudnessFile ? [loudnessFilter('loud', out.loudnessFile)] : []),
  ].join(';');
  const outputs = rungs.flatMap(({ rung, label }) => {
    const encode = ['-map', `[${label}]`, ...AAC, '-b:a', `${rung.kbps}k`];
    if (rung !== PROGRESSIVE_RUNG) return [...encode, ...hlsArgs(out.hlsDir, rung)];
    const hls = Object.entries(hlsOptions(out.hlsDir, rung))
      .map(([k, v]) => `${k}=${v}`)
      .join(':');
    return [...encode, '-f', 'tee', `[f=mp4:movflags=+faststart]${out.full}|[f=hls:${hls}]${path.join(out.hlsDir, `${rung.name}.m3u8`)}`];
  });
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-t',
    String(ctx.maxDurationSeconds),
    '-i',
    original,
    '-filter_complex',
    graph,
    ...outputs,
    '-map',
    '[wave]',
    '-ac',
    '1',
    '-ar',
    String(WAVEFORM_SAMPLE_RATE),
    '-f',
    's16le',
    'pipe:1',
    // The same PCM as fingerprintFile decodes (first audio stream, mono, 11,025 Hz), on fd 3.
    ...(fingerprint ? ['-map', '[fp]', '-ac', '1', '-ar', String(FINGERPRINT_SAMPLE_RATE), '-f', 's16le', 'pipe:3'] : []),
  ];
  try {
    await runMedia(ctx.binaries.ffmpeg.path, args, {
      signal: ctx.signal,
      timeoutMs: COMMAND_TIMEOUT_MS,
      onStdout: (stdout) => waveform.consume(stdout),
      pipes: fingerprint ? [(pcm) => fingerprint.read(pcm)] : [],
    });
  } catch (err) {
    fingerprint?.close();
    if (ctx.signal.aborted || out.loudnessFile) throw err;
    throw new UndecodableMediaError('the audio could not be decoded', { cause: err });
  }
  return {
    full: out.full,
    hlsDir: out.hlsDir,
    waveform,
    loudnessFile: out.loudnessFile,
    ...(fingerprint ? { fingerprint: fingerprint.result() } : {}),
  };
}

/** The measurement, or null (logged and counted) when its output cannot be read. */
async function measuredLoudness(file: string | null, input: PipelineInput, ctx: PipelineContext): Promise<LoudnessMeasurement | null> {
  if (!file) return null;
  try {
    return await readLoudness(file);
  } catch (err) {
    jobMetrics.measurementFailures.inc({ measurement: 'loudness' });
    ctx.logger?.warn({ err, trackId: input.trackId }, 'loudness could not be read; the track finishes without it');
    return null;
  }
}

/** `index.m3u8`: the master playlist over the rungs, with bandwidths from the written segments. */
async function writeMasterPlaylist(hlsDir: string): Promise<void> {
  const stats = await Promise.all(LADDER.map((rung) => rungStats(hlsDir, rung)));
  await writeFile(path.join(hlsDir, 'index.m3u8'), masterPlaylist(stats));
}

/** The first 30 s of the progressive file, stream-copied. */
async function cutPreview(full: string, dir: string, ctx: PipelineContext): Promise<string> {
  const preview = path.join(dir, 'preview.m4a');
  await runMedia(
    ctx.binaries.ffmpeg.path,
    ['-hide_banner', '-nostdin', '-v', 'error', '-i', full, '-t', PREVIEW_SECONDS, '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', '-y', preview],
    { signal: ctx.signal, timeoutMs: COMMAND_TIMEOUT_MS },
  );
  return preview;
}

async function storeWaveform(waveform: WaveformBuilder, keys: ReturnType<typeof outputKeys>, ctx: PipelineContext): Promise<void> {
  const peaks = waveform.toPeaks(WAVEFORM_POINTS);
  await ctx.storage.put(keys.waveformKey, JSON.stringify(peaks), 'application/json');
  await ctx.storage.put(keys.waveformJsonKey, JSON.stringify(waveform.toAudiowaveform()), 'application/json');
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

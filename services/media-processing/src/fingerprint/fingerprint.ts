import type { Readable } from 'node:stream';
import { runMedia } from '../media/run.js';
import { Fingerprinter, resetChromaprint, SAMPLE_RATE } from './chromaprint.js';

/** Samples between two sub-fingerprints (Chromaprint: 4096-sample frames, two thirds overlapping). */
export const ITEM_SAMPLES = 1365;
/** Seconds between two sub-fingerprints (about 0.124 s, 8.08 a second). */
export const ITEM_SECONDS = ITEM_SAMPLES / SAMPLE_RATE;
/** Shorter audio gets no fingerprint: Chromaprint's filters need about 2.6 s before their first value. */
export const MIN_FINGERPRINT_SECONDS = 3;
/** Fewer sub-fingerprints than this (about 1 s) are not worth storing or looking up. */
export const MIN_FINGERPRINT_ITEMS = 8;

export interface FingerprintOptions {
  ffmpeg: string;
  signal?: AbortSignal;
  /** Never decode more than this (the worker's duration limit). */
  maxSeconds?: number;
  timeoutMs?: number;
}

/**
 * The raw Chromaprint fingerprint of a file's first audio stream: ffmpeg decodes it to 16-bit mono
 * PCM at 11 025 Hz on a pipe, fed to Chromaprint as it arrives. Null when the audio is too short to
 * fingerprint.
 */
export async function fingerprintFile(file: string, options: FingerprintOptions): Promise<Uint32Array | null> {
  const fp = await Fingerprinter.start();
  try {
    const limit = options.maxSeconds ? ['-t', String(options.maxSeconds)] : [];
    await runMedia(
      options.ffmpeg,
      [
        '-hide_banner',
        '-nostdin',
        '-v',
        'error',
        ...limit,
        '-i',
        file,
        '-map',
        '0:a:0',
        '-vn',
        '-ac',
        '1',
        '-ar',
        String(SAMPLE_RATE),
        '-f',
        's16le',
        'pipe:1',
      ],
      {
        signal: options.signal,
        timeoutMs: options.timeoutMs ?? 10 * 60_000,
        onStdout: async (stdout: Readable) => {
          for await (const chunk of stdout) fp.feed(chunk as Buffer);
        },
      },
    );
    const raw = fp.finish();
    return raw.length >= MIN_FINGERPRINT_ITEMS ? raw : null;
  } catch (err) {
    // A failed call may leave the module in a bad state; the next fingerprint loads a fresh one.
    if (!(err instanceof Error && err.name === 'MediaCommandError')) resetChromaprint();
    throw err;
  } finally {
    fp.close();
  }
}

/** What the transcode's own decode gave the fingerprint step: the raw fingerprint (null when too short), or the failure. */
export type ComputedFingerprint = { fingerprint: Uint32Array | null } | { error: unknown };

/**
 * The fingerprint of PCM (16-bit mono at {@link SAMPLE_RATE}) that another ffmpeg run writes on one
 * of its pipes: the transcode's single decode of the original feeds it (src/media/pipeline.ts), so
 * the original is not decoded a second time. The same PCM as {@link fingerprintFile} decodes, so the
 * same fingerprint. A Chromaprint failure never fails that run: the pipe is drained to its end and
 * the failure is kept for the step, which counts it (docs/fingerprints.md).
 */
export class PcmFingerprint {
  private fp: Fingerprinter | null = null;
  private failure: { error: unknown } | null = null;

  /** Reads the pipe to its end; never rejects. */
  async read(stream: Readable): Promise<void> {
    try {
      this.fp = await Fingerprinter.start();
    } catch (error) {
      this.failure = { error };
    }
    try {
      for await (const chunk of stream) {
        if (this.failure || !this.fp) continue;
        try {
          this.fp.feed(chunk as Buffer);
        } catch (error) {
          this.failure = { error };
          resetChromaprint();
        }
      }
    } catch (error) {
      this.failure ??= { error };
    }
  }

  /** Once the run has ended: the fingerprint (null under {@link MIN_FINGERPRINT_ITEMS}) or the failure. Frees the context. */
  result(): ComputedFingerprint {
    try {
      if (this.failure) return this.failure;
      if (!this.fp) return { error: new Error('the fingerprint was not started') };
      const raw = this.fp.finish();
      return { fingerprint: raw.length >= MIN_FINGERPRINT_ITEMS ? raw : null };
    } catch (error) {
      resetChromaprint();
      return { error };
    } finally {
      this.close();
    }
  }

  close(): void {
    this.fp?.close();
  }
}

/** Little-endian bytes, as stored in `track_fingerprint.fingerprint`. */
export function fingerprintToBytes(fp: Uint32Array): Buffer {
  const out = Buffer.allocUnsafe(fp.length * 4);
  for (let i = 0; i < fp.length; i++) out.writeUInt32LE(fp[i] ?? 0, i * 4);
  return out;
}

export function fingerprintFromBytes(bytes: Uint8Array): Uint32Array {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Uint32Array(Math.floor(buf.length / 4));
  for (let i = 0; i < out.length; i++) out[i] = buf.readUInt32LE(i * 4);
  return out;
}

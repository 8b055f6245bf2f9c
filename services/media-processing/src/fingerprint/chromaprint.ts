import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { MainModule } from '@unimusic/chromaprint/dist/chromaprint.js';

/**
 * Chromaprint (AcoustID's fingerprinter, C++) compiled to WebAssembly, from `@unimusic/chromaprint`.
 * Only the module is used, not the package's entry point (that one decodes with the browser's Web
 * Audio API): ffmpeg decodes, and this feeds the library 16-bit mono PCM at {@link SAMPLE_RATE}.
 * Its raw fingerprints are bit-for-bit those of `fpcalc -raw` (Chromaprint 1.5.1, Debian) for the
 * same PCM (docs/fingerprints.md), so no system package is needed.
 */

/** Chromaprint's own working rate: feeding it this rate means no resampling inside the library. */
export const SAMPLE_RATE = 11_025;
/** CHROMAPRINT_ALGORITHM_DEFAULT (TEST2): what fpcalc and AcoustID use. */
const ALGORITHM_DEFAULT = 1;
/** Samples copied into the module per feed call. */
const FEED_SAMPLES = 64 * 1024;

let loading: Promise<MainModule> | null = null;

/**
 * The module is built for browsers only: its loader refuses to start unless `window` or
 * `WorkerGlobalScope` exists, and it would fetch the .wasm over HTTP. The binary is read from the
 * package and handed over, and the marker global exists only while the loader checks it (the check
 * runs synchronously when the factory is called).
 */
async function instantiate(): Promise<MainModule> {
  const require = createRequire(import.meta.url);
  const wasmBinary = await readFile(require.resolve('@unimusic/chromaprint/dist/chromaprint.wasm'));
  const { default: factory } = await import('@unimusic/chromaprint/dist/chromaprint.js');
  const scope = globalThis as { WorkerGlobalScope?: unknown; window?: unknown };
  const marker = scope.window === undefined && scope.WorkerGlobalScope === undefined;
  if (marker) scope.WorkerGlobalScope = function WorkerGlobalScope() {};
  let pending: Promise<MainModule>;
  try {
    pending = factory({ wasmBinary, print: () => undefined, printErr: () => undefined });
  } finally {
    if (marker) delete scope.WorkerGlobalScope;
  }
  return pending;
}

/** One module per process; a module that aborted (a failed assertion) is replaced at the next use. */
function chromaprintModule(): Promise<MainModule> {
  loading ??= instantiate().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

function discardModule(): void {
  loading = null;
}

/**
 * One fingerprint being computed. PCM arrives in chunks (ffmpeg's stdout) and is fed as it comes,
 * so a long track never sits in memory and the event loop is never blocked for long. Several may
 * run at once in one process (each has its own Chromaprint context); JavaScript runs them in turn.
 */
export class Fingerprinter {
  private carry: Buffer | null = null;
  private closed = false;

  private constructor(
    private readonly m: MainModule,
    private readonly ctx: number,
    private readonly buffer: number,
  ) {}

  static async start(): Promise<Fingerprinter> {
    const m = await chromaprintModule();
    const ctx = m._chromaprint_new(ALGORITHM_DEFAULT);
    if (!ctx) throw new Error('chromaprint_new failed');
    const buffer = m._malloc(FEED_SAMPLES * 2);
    if (!buffer || !m._chromaprint_start(ctx, SAMPLE_RATE, 1)) {
      m._free(buffer);
      m._chromaprint_free(ctx);
      throw new Error('chromaprint_start failed');
    }
    return new Fingerprinter(m, ctx, buffer);
  }

  /** 16-bit little-endian mono PCM at SAMPLE_RATE; any chunking (an odd byte is kept for the next). */
  feed(chunk: Buffer): void {
    let data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    if (data.length % 2 === 1) {
      this.carry = Buffer.from(data.subarray(data.length - 1));
      data = data.subarray(0, data.length - 1);
    }
    for (let at = 0; at < data.length; at += FEED_SAMPLES * 2) {
      const part = data.subarray(at, Math.min(data.length, at + FEED_SAMPLES * 2));
      const samples = part.length / 2;
      // Copied byte-wise into the module's heap (little-endian like the PCM); HEAP16 is read anew each
      // time because the heap may have grown (a new buffer) since the last call.
      const heap = new Uint8Array(this.m.HEAP16.buffer as ArrayBuffer, this.buffer, part.length);
      heap.set(part);
      this.call(this.m._chromaprint_feed(this.ctx, this.buffer, samples), 'chromaprint_feed');
    }
  }

  /** Ends the input; the raw fingerprint (32-bit sub-fingerprints, about 8 a second). */
  finish(): Uint32Array {
    const m = this.m;
    this.call(m._chromaprint_finish(this.ctx), 'chromaprint_finish');
    const sizePtr = m._malloc(4);
    const dataPtr = m._malloc(4);
    try {
      this.call(m._chromaprint_get_raw_fingerprint(this.ctx, dataPtr, sizePtr), 'chromaprint_get_raw_fingerprint');
      const size = (m.HEAP32 as Int32Array)[sizePtr >> 2] ?? 0;
      const raw = (m.HEAP32 as Int32Array)[dataPtr >> 2] ?? 0;
      try {
        return Uint32Array.from((m.HEAP32 as Int32Array).subarray(raw >> 2, (raw >> 2) + size), (v) => v >>> 0);
      } finally {
        if (raw) m._free(raw);
      }
    } finally {
      m._free(sizePtr);
      m._free(dataPtr);
    }
  }

  /** Frees the context; safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.m._free(this.buffer);
      this.m._chromaprint_free(this.ctx);
    } catch {
      discardModule();
    }
  }

  private call(ok: number, name: string): void {
    if (!ok) throw new Error(`${name} failed`);
  }
}

/** Whole-buffer convenience (tests, benchmarks). */
export async function fingerprintPcm(pcm: Buffer): Promise<Uint32Array> {
  const fp = await Fingerprinter.start();
  try {
    fp.feed(pcm);
    return fp.finish();
  } catch (err) {
    discardModule();
    throw err;
  } finally {
    fp.close();
  }
}

export { discardModule as resetChromaprint };

/**
 * Matching quality of the acoustic fingerprints (a benchmark, not a test).
 *
 *   npx tsx bench/fingerprint-quality.ts [pieces=300] [--cache DIR]
 *
 * Corpus (generated here, nothing downloaded; seeded, so every run makes the same audio):
 * `pieces` distinct pieces of 30–50 s, 44.1 kHz mono, synthesised from a seeded random generator:
 * a melody (harmonic tones with envelopes, notes of 1–4 beats from a random scale), a chord
 * progression, a drum pattern (kick, snare and hi-hat noise bursts on a random 16-step grid), and
 * for a third of them a band of amplitude-modulated noise. Each piece gets 7 copies made by the
 * ffmpeg the worker uses: MP3 128 kbps, AAC 96 kbps, Opus 64 kbps, +3 dB, −3 dB, the first 10 s
 * cut, the last 10 s cut.
 *
 * Every piece is fingerprinted and stored through the worker's own code (Chromaprint WASM, the
 * `fingerprint_hash` index in a private PostgreSQL database); then every copy is looked up like a
 * new upload. Recall: copies whose match is their source (over ≥ 90 % of the shorter). False
 * matches: any match with another piece, over every copy's lookup and every piece's lookup against
 * all the others (all pairs as the lookup sees them). Precision: right matches / all matches.
 * With `--cache DIR` the audio and fingerprints are kept there and reused by the next run.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createPgPool, pgSqlExecutor } from '../packages/db/src/index.ts';
import { createTestDatabase } from '../packages/testing/src/index.ts';
import { resolveMediaBinaries } from '../services/media-processing/src/media/ffmpeg.ts';
import { fingerprintFile, fingerprintFromBytes, fingerprintToBytes } from '../services/media-processing/src/fingerprint/fingerprint.ts';
import { FingerprintRepository, type FingerprintDb } from '../services/media-processing/src/fingerprint/fingerprint.repository.ts';
import { findMatch } from '../services/media-processing/src/fingerprint/fingerprint.service.ts';
import { indexKeys } from '../services/media-processing/src/fingerprint/matcher.ts';

const execFileAsync = promisify(execFile);
const migrations = fileURLToPath(new URL('../services/media-processing/prisma/migrations', import.meta.url));

const args = process.argv.slice(2);
const cacheAt = args.indexOf('--cache');
const cacheDir = cacheAt >= 0 ? args[cacheAt + 1] : undefined;
const PIECES = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--cache') ?? 300);
const RATE = 44_100;
const CONCURRENCY = 2;

/** mulberry32: a small seeded generator, so the corpus is the same on every machine. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALES = [
  [0, 2, 4, 5, 7, 9, 11],
  [0, 2, 3, 5, 7, 8, 10],
  [0, 2, 4, 7, 9],
  [0, 3, 5, 6, 7, 10],
  [0, 2, 3, 5, 7, 9, 10],
];

const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/** One piece: melody, chords, drums, sometimes a noise texture; 16-bit mono WAV bytes. */
function synthesize(seed: number): { wav: Buffer; seconds: number } {
  const r = rng(seed * 7919 + 17);
  const seconds = 30 + Math.floor(r() * 21);
  const n = seconds * RATE;
  const out = new Float32Array(n);
  const beat = 0.18 + r() * 0.4;
  const root = 45 + Math.floor(r() * 12);
  const scale = SCALES[Math.floor(r() * SCALES.length)] ?? [0, 2, 4, 5, 7, 9, 11];
  const note = (degree: number, octave: number) =>
    root + 12 * octave + (scale[((degree % scale.length) + scale.length) % scale.length] ?? 0) + 12 * Math.floor(degree / scale.length);
  const harmonics = [1, r() * 0.7, r() * 0.5, r() * 0.3, r() * 0.2];
  const tone = (f: number, start: number, dur: number, gain: number, attack = 0.01, decay = 3) => {
    const s0 = Math.floor(start * RATE);
    const len = Math.min(n - s0, Math.floor(dur * RATE));
    for (let i = 0; i < len; i++) {
      const t = i / RATE;
      const env = Math.min(1, t / attack) * Math.exp(-decay * t) * Math.min(1, (len - i) / (0.01 * RATE));
      let v = 0;
      for (let h = 0; h < harmonics.length; h++) v += (harmonics[h] ?? 0) * Math.sin(2 * Math.PI * f * (h + 1) * t);
      out[s0 + i] = (out[s0 + i] ?? 0) + gain * env * v;
    }
  };
  // Melody.
  for (let t = 0, degree = Math.floor(r() * 7); t < seconds;) {
    const dur = beat * (1 + Math.floor(r() * 4));
    degree += Math.floor(r() * 7) - 3;
    degree = Math.max(-3, Math.min(12, degree));
    if (r() > 0.12) tone(hz(note(degree, 2)), t, dur, 0.22, 0.01, 1 + r() * 3);
    t += dur;
  }
  // Chords.
  for (let t = 0; t < seconds;) {
    const dur = beat * (4 + 4 * Math.floor(r() * 2));
    const d = Math.floor(r() * 7);
    for (const k of [0, 2, 4]) tone(hz(note(d + k, 1)), t, dur, 0.09, 0.05, 0.4);
    tone(hz(note(d, 0)), t, dur, 0.14, 0.02, 0.8);
    t += dur;
  }
  // Drums on a random 16-step grid.
  const step = beat / 4;
  const kick = Array.from({ length: 16 }, (_, i) => i % 4 === 0 || r() < 0.15);
  const snare = Array.from({ length: 16 }, (_, i) => i % 8 === 4 || r() < 0.08);
  const hat = Array.from({ length: 16 }, () => r() < 0.6);
  const noise = rng(seed + 1);
  for (let s = 0; s * step < seconds; s++) {
    const start = Math.floor(s * step * RATE);
    const k = s % 16;
    if (kick[k])
      for (let i = 0; i < 0.25 * RATE && start + i < n; i++) {
        const t = i / RATE;
        out[start + i] = (out[start + i] ?? 0) + 0.5 * Math.exp(-18 * t) * Math.sin(2 * Math.PI * (50 + 90 * Math.exp(-30 * t)) * t);
      }
    if (snare[k])
      for (let i = 0; i < 0.18 * RATE && start + i < n; i++) out[start + i] = (out[start + i] ?? 0) + 0.25 * Math.exp(-22 * (i / RATE)) * (noise() * 2 - 1);
    if (hat[k]) {
      let prev = 0;
      for (let i = 0; i < 0.05 * RATE && start + i < n; i++) {
        const w = noise() * 2 - 1;
        out[start + i] = (out[start + i] ?? 0) + 0.12 * Math.exp(-70 * (i / RATE)) * (w - prev);
        prev = w;
      }
    }
  }
  // A noise texture for a third of the pieces: low-passed noise, amplitude-modulated.
  if (r() < 0.33) {
    const rate = 0.2 + r() * 2;
    let lp = 0;
    for (let i = 0; i < n; i++) {
      lp += 0.05 * (noise() * 2 - 1 - lp);
      out[i] = (out[i] ?? 0) + 0.5 * lp * (0.5 + 0.5 * Math.sin(2 * Math.PI * rate * (i / RATE)));
    }
  }
  let peak = 0;
  for (let i = 0; i < n; i++) peak = Math.max(peak, Math.abs(out[i] ?? 0));
  const scale16 = (0.7 / (peak || 1)) * 32767;
  const wav = Buffer.alloc(44 + n * 2);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + n * 2, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(RATE, 24);
  wav.writeUInt32LE(RATE * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) wav.writeInt16LE(Math.round((out[i] ?? 0) * scale16), 44 + i * 2);
  return { wav, seconds };
}

const VARIANTS = ['mp3-128k', 'aac-96k', 'opus-64k', 'gain+3dB', 'gain-3dB', 'cut-first-10s', 'cut-last-10s'] as const;
type Variant = (typeof VARIANTS)[number];

function variantArgs(variant: Variant, seconds: number, dir: string): string[] {
  const file = (ext: string) => path.join(dir, `${variant}.${ext}`);
  switch (variant) {
    case 'mp3-128k':
      return ['-c:a', 'libmp3lame', '-b:a', '128k', '-y', file('mp3')];
    case 'aac-96k':
      return ['-c:a', 'aac', '-b:a', '96k', '-y', file('m4a')];
    case 'opus-64k':
      return ['-c:a', 'libopus', '-b:a', '64k', '-y', file('opus')];
    case 'gain+3dB':
      return ['-af', 'volume=3dB', '-y', file('wav')];
    case 'gain-3dB':
      return ['-af', 'volume=-3dB', '-y', file('wav')];
    case 'cut-first-10s':
      return ['-ss', '10', '-y', file('wav')];
    case 'cut-last-10s':
      return ['-t', String(seconds - 10), '-y', file('wav')];
  }
}

const variantFile = (variant: Variant, dir: string) =>
  path.join(dir, `${variant}.${variant === 'mp3-128k' ? 'mp3' : variant === 'aac-96k' ? 'm4a' : variant === 'opus-64k' ? 'opus' : 'wav'}`);

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

interface PieceFingerprints {
  source: Uint32Array;
  variants: Map<Variant, Uint32Array | null>;
}

async function main() {
  const started = Date.now();
  const binaries = await resolveMediaBinaries({ FFMPEG_PATH: process.env.FFMPEG_PATH, FFPROBE_PATH: process.env.FFPROBE_PATH });
  const ffmpeg = binaries.ffmpeg.path;
  const root = cacheDir ?? (await mkdtemp(path.join(os.tmpdir(), 'msp-fp-quality-')));
  await mkdir(root, { recursive: true });
  const pieces = new Map<number, PieceFingerprints>();
  const ids = Array.from({ length: PIECES }, (_, i) => i + 1);
  let done = 0;
  await inParallel(ids, CONCURRENCY, async (id) => {
    const dir = path.join(root, `piece-${id}`);
    const cached = path.join(dir, 'fingerprints.json');
    if (existsSync(cached)) {
      const json = JSON.parse(await readFile(cached, 'utf8')) as Record<string, string | null>;
      const decode = (b: string | null | undefined) => (b ? fingerprintFromBytes(Buffer.from(b, 'base64')) : null);
      pieces.set(id, { source: decode(json.source) ?? new Uint32Array(0), variants: new Map(VARIANTS.map((v) => [v, decode(json[v])])) });
      return;
    }
    await mkdir(dir, { recursive: true });
    const { wav, seconds } = synthesize(id);
    const source = path.join(dir, 'source.wav');
    await writeFile(source, wav);
    await execFileAsync(ffmpeg, ['-hide_banner', '-nostdin', '-v', 'error', '-i', source, ...VARIANTS.flatMap((v) => variantArgs(v, seconds, dir))]);
    const sourceFp = await fingerprintFile(source, { ffmpeg });
    const variants = new Map<Variant, Uint32Array | null>();
    for (const v of VARIANTS) variants.set(v, await fingerprintFile(variantFile(v, dir), { ffmpeg }));
    pieces.set(id, { source: sourceFp ?? new Uint32Array(0), variants });
    const json: Record<string, string | null> = { source: sourceFp ? fingerprintToBytes(sourceFp).toString('base64') : null };
    for (const [v, fp] of variants) json[v] = fp ? fingerprintToBytes(fp).toString('base64') : null;
    if (cacheDir) {
      await writeFile(cached, JSON.stringify(json));
      await Promise.all(['source.wav', ...VARIANTS.map((v) => path.basename(variantFile(v, dir)))].map((f) => rm(path.join(dir, f), { force: true })));
    }
    if (++done % 25 === 0) console.log(`  ${done}/${PIECES} pieces generated and fingerprinted (${Math.round((Date.now() - started) / 1000)} s)`);
  });
  const generatedAt = Date.now();

  const db = await createTestDatabase('fp_quality', migrations);
  const pg = createPgPool(db.url);
  // The repository runs raw SQL on any executor: a pg pool plays the Prisma client here.
  const prisma: FingerprintDb = pgSqlExecutor(pg);
  const repo = new FingerprintRepository({ ...prisma, $transaction: (work) => work(prisma) });
  try {
    for (const id of ids) {
      const fp = pieces.get(id)?.source;
      if (!fp?.length) throw new Error(`piece ${id} has no fingerprint`);
      await repo.store(prisma, { trackId: id, uploadId: '00000000-0000-4000-8000-000000000000', attempt: 1 }, fp, indexKeys(fp));
    }
    let right = 0;
    let wrong = 0;
    let queries = 0;
    const misses = new Map<Variant, number>(VARIANTS.map((v) => [v, 0]));
    const coverages: number[] = [];
    const scores: number[] = [];
    const missExamples: string[] = [];
    for (const id of ids) {
      const piece = pieces.get(id);
      if (!piece) continue;
      for (const v of VARIANTS) {
        queries++;
        const fp = piece.variants.get(v);
        const match = fp ? await findMatch(repo, prisma, fp, null) : null;
        if (match?.trackId === id) {
          right++;
          coverages.push(match.alignment.coverage);
          scores.push(match.alignment.score);
        } else {
          misses.set(v, (misses.get(v) ?? 0) + 1);
          if (match) wrong++;
          if (missExamples.length < 10) missExamples.push(`piece ${id} ${v}: ${match ? `matched ${match.trackId}` : 'no match'}`);
        }
      }
    }
    // Every piece against all the others (its own entries excluded): any match is a false one.
    let pairWrong = 0;
    for (const id of ids) {
      const match = await findMatch(repo, prisma, pieces.get(id)?.source ?? new Uint32Array(0), id);
      if (match) {
        pairWrong++;
        if (missExamples.length < 20) missExamples.push(`piece ${id} matched piece ${match.trackId} (coverage ${match.alignment.coverage.toFixed(2)})`);
      }
    }
    const matches = right + wrong + pairWrong;
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0;
    console.log(`\nfingerprint quality: ${PIECES} pieces × ${VARIANTS.length} copies = ${queries} copy lookups, + ${PIECES} piece-vs-all lookups`);
    console.log(`  recall    ${pct(right / queries)} (${right}/${queries})`);
    for (const v of VARIANTS) console.log(`    ${v.padEnd(14)} missed ${misses.get(v)}`);
    console.log(`  precision ${pct(matches ? right / matches : 1)} (false matches: ${wrong} among copies, ${pairWrong} between distinct pieces)`);
    console.log(`  coverage of right matches: p5 ${quantile(coverages, 0.05).toFixed(3)}, median ${quantile(coverages, 0.5).toFixed(3)}`);
    console.log(`  score of right matches:    p5 ${quantile(scores, 0.05).toFixed(3)}, median ${quantile(scores, 0.5).toFixed(3)}`);
    if (missExamples.length) console.log(`  examples:\n    ${missExamples.join('\n    ')}`);
    console.log(
      `  time: corpus ${Math.round((generatedAt - started) / 1000)} s${existsSync(path.join(root, 'piece-1', 'fingerprints.json')) && cacheDir ? ' (cache)' : ''}, index + lookups ${Math.round((Date.now() - generatedAt) / 1000)} s`,
    );
  } finally {
    await pg.end();
    await db.drop();
    if (!cacheDir) await rm(root, { recursive: true, force: true });
  }
}

await main();

import { ITEM_SECONDS } from './fingerprint.js';

/*
 * Matching two raw Chromaprint fingerprints (docs/fingerprints.md). Pure functions: the index keys a
 * fingerprint contributes (and looks up), and the verification that aligns a query with a candidate
 * and measures where and how well they agree.
 */

/** Bits of a sub-fingerprint kept as its index key (its top bits: the first classifiers). */
export const KEY_BITS = 24;
/**
 * A stored track keeps about this many index entries at least (every run start of a short track),
 * and fewer per second the longer it is, down to one key in 2^MAX_LEVEL.
 */
const INDEX_ROWS_TARGET = 32;
/** Sparsest sampling of a long track: 1 key in 32, about one entry every 4 s. */
export const MAX_LEVEL = 5;
/**
 * At most this many keys are looked up for one query (the sparsest-sampled levels first). Each key
 * is one descent of the index, the bulk of a lookup's cost. Twice INDEX_ROWS_TARGET: a track of the
 * query's own length is stored at a level that leaves it fewer than 64 run starts, so the query
 * probes every key such a copy stored; a long query probes its level-5 keys of about its first
 * 4 minutes (docs/fingerprints.md).
 */
export const MAX_QUERY_KEYS = 2 * INDEX_ROWS_TARGET;
/** Offsets tried on each side of a candidate's indexed offset (the keys of a copy shift by a few items). */
const ALIGN_RADIUS = 4;
/** Bit errors per 32-bit sub-fingerprint are averaged over this many items (about 2 s). */
const SMOOTH_ITEMS = 16;
/** A smoothed error rate above this is "not the same audio here" (unrelated audio sits near 16). */
export const MAX_SMOOTHED_ERRORS = 10;
/** A stretch of disagreement this short (about 1 s) inside agreement does not cut the match. */
const MAX_GAP_ITEMS = 8;
/** "Same audio": the matched stretch covers at least this share of the shorter fingerprint. */
export const SAME_AUDIO_COVERAGE = 0.9;

/** The index key of a sub-fingerprint. */
export function keyOf(value: number): number {
  return value >>> (32 - KEY_BITS);
}

/**
 * The sampling level of a key: the leading zero bits of a mix of it, so a key is at level ≥ s with
 * probability 2^-s, the same for every track. A track stored at level s keeps its keys of level ≥ s.
 */
export function levelOf(key: number): number {
  return Math.min(MAX_LEVEL, Math.clz32(Math.imul(key, 0x9e3779b1) | 1));
}

/** The level a fingerprint of this many items is stored at: at least INDEX_ROWS_TARGET entries when it can. */
export function storeLevel(items: number): number {
  return Math.max(0, Math.min(MAX_LEVEL, Math.floor(Math.log2(Math.max(1, items / INDEX_ROWS_TARGET)))));
}

export interface IndexKeys {
  hashes: number[];
  positions: number[];
}

/** The first item of each run of equal keys, with its level. */
function runStarts(fp: Uint32Array): { key: number; pos: number; level: number }[] {
  const out: { key: number; pos: number; level: number }[] = [];
  let previous = -1;
  for (let i = 0; i < fp.length; i++) {
    const key = keyOf(fp[i] ?? 0);
    if (key !== previous) out.push({ key, pos: i, level: levelOf(key) });
    previous = key;
  }
  return out;
}

/**
 * The (key, position) pairs a fingerprint contributes to the index: the first item of each run of
 * equal keys whose level reaches the track's storage level. Deterministic, so a retry writes the
 * same rows.
 */
export function indexKeys(fp: Uint32Array): IndexKeys {
  const level = storeLevel(fp.length);
  const hashes: number[] = [];
  const positions: number[] = [];
  for (const run of runStarts(fp)) {
    if (run.level < level) continue;
    hashes.push(run.key);
    positions.push(run.pos);
  }
  return { hashes, positions };
}

/**
 * The keys a lookup probes: the query's run starts, highest levels first (those are stored for
 * tracks of every length), at most `max`.
 */
export function queryKeys(fp: Uint32Array, max = MAX_QUERY_KEYS): IndexKeys {
  const runs = runStarts(fp);
  if (runs.length > max) {
    runs.sort((a, b) => b.level - a.level || a.pos - b.pos);
    runs.length = max;
  }
  return { hashes: runs.map((r) => r.key), positions: runs.map((r) => r.pos) };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Where two fingerprints agree, in sub-fingerprint positions (end exclusive). */
export interface Alignment {
  /** Position in the reference = position in the query + offset. */
  offset: number;
  queryStart: number;
  queryEnd: number;
  refStart: number;
  refEnd: number;
  /** Matched items over the shorter fingerprint's length (0..1). */
  coverage: number;
  /** 1 − 2 × bit error rate over the matched stretch: 1 identical, 0 unrelated. */
  score: number;
}

/** Bit errors at each overlapping position for one offset. */
function errorsAt(query: Uint32Array, ref: Uint32Array, offset: number): { start: number; errors: Uint8Array } {
  const start = Math.max(0, -offset);
  const end = Math.min(query.length, ref.length - offset);
  const errors = new Uint8Array(Math.max(0, end - start));
  for (let j = start; j < end; j++) errors[j - start] = popcount(((query[j] ?? 0) ^ (ref[j + offset] ?? 0)) >>> 0);
  return { start, errors };
}

/** The longest stretch whose smoothed error rate stays low, gaps of up to MAX_GAP_ITEMS bridged. */
function longestAgreement(errors: Uint8Array): { from: number; to: number; bitErrors: number } | null {
  const n = errors.length;
  if (n === 0) return null;
  const half = Math.floor(SMOOTH_ITEMS / 2);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = (prefix[i] ?? 0) + (errors[i] ?? 0);
  let best: { from: number; to: number } | null = null;
  let runFrom = -1;
  let lastGood = -1;
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - half);
    const hi = Math.min(n, i + half + 1);
    const good = ((prefix[hi] ?? 0) - (prefix[lo] ?? 0)) / (hi - lo) <= MAX_SMOOTHED_ERRORS;
    if (!good) continue;
    if (runFrom < 0 || i - lastGood > MAX_GAP_ITEMS + 1) runFrom = i;
    lastGood = i;
    if (!best || i + 1 - runFrom > best.to - best.from) best = { from: runFrom, to: i + 1 };
  }
  if (!best) return null;
  return { ...best, bitErrors: (prefix[best.to] ?? 0) - (prefix[best.from] ?? 0) };
}

/**
 * Aligns `query` with `ref` around the offset the index suggested and returns the longest stretch
 * where they agree, or null when they agree nowhere.
 */
export function align(query: Uint32Array, ref: Uint32Array, offsetGuess: number): Alignment | null {
  let best: Alignment | null = null;
  const shorter = Math.min(query.length, ref.length);
  if (shorter === 0) return null;
  for (let offset = offsetGuess - ALIGN_RADIUS; offset <= offsetGuess + ALIGN_RADIUS; offset++) {
    const { start, errors } = errorsAt(query, ref, offset);
    const stretch = longestAgreement(errors);
    if (!stretch) continue;
    const items = stretch.to - stretch.from;
    const ber = stretch.bitErrors / (32 * items);
    const candidate: Alignment = {
      offset,
      queryStart: start + stretch.from,
      queryEnd: start + stretch.to,
      refStart: start + stretch.from + offset,
      refEnd: start + stretch.to + offset,
      coverage: Math.min(1, items / shorter),
      score: Math.max(0, Math.min(1, 1 - 2 * ber)),
    };
    if (!best || candidate.coverage > best.coverage || (candidate.coverage === best.coverage && candidate.score > best.score)) best = candidate;
  }
  return best;
}

/** "Same audio": the agreement covers at least 90 % of the shorter of the two. */
export function isSameAudio(alignment: Alignment): boolean {
  return alignment.coverage >= SAME_AUDIO_COVERAGE;
}

/** Seconds from the start of the fingerprint, to the hundredth. */
export function itemSeconds(position: number): number {
  return Math.round(position * ITEM_SECONDS * 100) / 100;
}

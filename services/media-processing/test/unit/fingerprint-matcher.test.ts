import { describe, expect, it } from 'vitest';
import { rankCandidates } from '../../src/fingerprint/fingerprint.service.js';
import { align, indexKeys, isSameAudio, levelOf, MAX_LEVEL, MAX_QUERY_KEYS, queryKeys, storeLevel } from '../../src/fingerprint/matcher.js';

/** A fingerprint-like sequence: each value a few bits away from the previous one (seeded). */
function walk(length: number, seed: number): Uint32Array {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const out = new Uint32Array(length);
  let value = next();
  for (let i = 0; i < length; i++) {
    value = (value ^ (1 << (next() >>> 27)) ^ (1 << (next() >>> 27)) ^ (1 << (next() >>> 27))) >>> 0;
    out[i] = value;
  }
  return out;
}

/** Flips `bits` random bits in every value (a lossy copy). */
function degrade(fp: Uint32Array, bits: number, seed: number): Uint32Array {
  let state = seed >>> 0;
  return fp.map((v) => {
    let x = v;
    for (let b = 0; b < bits; b++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      x ^= 1 << (state >>> 27);
    }
    return x >>> 0;
  });
}

describe('fingerprint matching (pure)', () => {
  it('stores every run start of a short fingerprint and one key in 2^5 of a long one, the same way each time', () => {
    expect(storeLevel(40)).toBe(0);
    expect(storeLevel(2000)).toBe(MAX_LEVEL);
    const long = walk(2000, 1);
    const keys = indexKeys(long);
    expect(indexKeys(long)).toEqual(keys);
    expect(keys.hashes.every((h) => levelOf(h) >= MAX_LEVEL)).toBe(true);
    expect(keys.hashes.length).toBeGreaterThan(20);
    expect(keys.hashes.length).toBeLessThan(120);
    expect(queryKeys(long).hashes).toHaveLength(MAX_QUERY_KEYS);
  });

  it('aligns a degraded copy cut by 40 items at its offset, over all of it', () => {
    const source = walk(600, 2);
    const copy = degrade(source.subarray(40), 2, 3);
    const alignment = align(copy, source, 41);
    expect(alignment).toMatchObject({ offset: 40, queryStart: 0, queryEnd: 560, refStart: 40, refEnd: 600 });
    expect(isSameAudio(alignment!)).toBe(true);
    expect(alignment!.score).toBeGreaterThan(0.8);
  });

  it('finds no stretch worth a match between unrelated fingerprints', () => {
    const alignment = align(walk(400, 4), walk(400, 5), 0);
    expect(alignment === null || !isSameAudio(alignment)).toBe(true);
  });

  it('ranks tracks by the keys that agree on one offset, neighbouring offsets summed', () => {
    const ranked = rankCandidates([
      { trackId: 7, offset: 40, hits: 3 },
      { trackId: 7, offset: 41, hits: 2 },
      { trackId: 9, offset: 10, hits: 4 },
      { trackId: 9, offset: 90, hits: 1 },
      { trackId: 11, offset: 5, hits: 1 },
    ]);
    expect(ranked).toEqual([
      { trackId: 7, offset: 40, hits: 5 },
      { trackId: 9, offset: 10, hits: 4 },
    ]);
  });
});

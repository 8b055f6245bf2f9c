import { describe, expect, it } from 'vitest';
import type { FingerprintDb, FingerprintRepository, CandidateRow, DuplicateRecord } from './fingerprint.repository.js';
import { FingerprintStep, findMatch } from './fingerprint.service.js';
import type { IndexKeys } from './matcher.js';

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

/**
 * The fingerprint store in memory: fingerprints and index entries by track, candidates counted per
 * track and offset as the repository's SQL does. The repository is a class, so this fake is cast.
 */
function fakeRepo() {
  const prints = new Map<number, Uint32Array>();
  const index = new Map<number, IndexKeys>();
  const duplicates: DuplicateRecord[] = [];
  const log: string[] = [];
  const tx = {} as FingerprintDb;
  const repo = {
    inWriteTransaction: <T>(work: (db: FingerprintDb) => Promise<T>) => work(tx),
    candidates: (_db: FingerprintDb, keys: IndexKeys, exclude: number | null): Promise<CandidateRow[]> => {
      const counts = new Map<string, CandidateRow>();
      keys.hashes.forEach((hash, q) => {
        for (const [trackId, stored] of index) {
          if (trackId === exclude) continue;
          stored.hashes.forEach((h, i) => {
            if (h !== hash) return;
            const offset = stored.positions[i]! - keys.positions[q]!;
            const row = counts.get(`${trackId}:${offset}`) ?? { trackId, offset, hits: 0 };
            row.hits += 1;
            counts.set(`${trackId}:${offset}`, row);
          });
        }
      });
      return Promise.resolve([...counts.values()]);
    },
    fingerprints: (_db: FingerprintDb, ids: readonly number[]) =>
      Promise.resolve(new Map(ids.flatMap((id) => (prints.has(id) ? [[id, prints.get(id)!] as const] : [])))),
    store: (_db: FingerprintDb, track: { trackId: number }, fp: Uint32Array, keys: IndexKeys) => {
      prints.set(track.trackId, fp);
      index.set(track.trackId, keys);
      log.push(`store ${track.trackId}`);
      return Promise.resolve();
    },
    remove: (_db: FingerprintDb, trackId: number) => {
      prints.delete(trackId);
      index.delete(trackId);
      log.push(`remove ${trackId}`);
      return Promise.resolve();
    },
    recordDuplicate: (_db: FingerprintDb, record: DuplicateRecord) => {
      const fresh = !duplicates.some((d) => d.uploadId === record.uploadId && d.attempt === record.attempt);
      duplicates.push(record);
      return Promise.resolve(fresh);
    },
  } as unknown as FingerprintRepository;
  return { repo, tx, prints, duplicates, log };
}

const logger = () => {
  const lines: string[] = [];
  return { lines, info: (_o: object, msg: string) => void lines.push(`info ${msg}`), warn: (_o: object, msg: string) => void lines.push(`warn ${msg}`) };
};

const upload = (trackId: number, fp: Uint32Array | null | Error, durationSeconds = 60) => ({
  trackId,
  uploadId: `u-${trackId}`,
  attempt: 1,
  file: '/nonexistent',
  durationSeconds,
  computed: fp instanceof Error ? { error: fp } : { fingerprint: fp },
});

describe('duplicate uploads (docs/fingerprints.md)', () => {
  it('stores the first upload, and records a second upload of the same audio as a duplicate of it', async () => {
    const { repo, duplicates, log } = fakeRepo();
    const step = new FingerprintStep(repo, 'ffmpeg', logger());
    const audio = walk(600, 11);
    await expect(step.run(upload(1, audio))).resolves.toBe('stored');
    await expect(step.run(upload(2, audio.slice()))).resolves.toBe('duplicate');
    expect(duplicates).toEqual([expect.objectContaining({ trackId: 2, uploadId: 'u-2', attempt: 1, duplicateOfTrackId: 1 })]);
    // The duplicate's fingerprint is stored too: a third copy matches one of them.
    expect(log).toEqual(['store 1', 'store 2']);
  });

  it('does not match different audio, nor the track against itself (a re-upload replaces its own fingerprint)', async () => {
    const { repo, tx, duplicates } = fakeRepo();
    const step = new FingerprintStep(repo, 'ffmpeg', logger());
    await step.run(upload(1, walk(600, 11)));
    await expect(step.run(upload(2, walk(600, 99)))).resolves.toBe('stored');
    await expect(step.run(upload(1, walk(600, 11)))).resolves.toBe('stored');
    expect(duplicates).toEqual([]);
    await expect(findMatch(repo, tx, walk(600, 11), null)).resolves.toMatchObject({ trackId: 1 });
  });

  it('removes the fingerprint of a track too short to fingerprint, without decoding it', async () => {
    const { repo, log, prints } = fakeRepo();
    const step = new FingerprintStep(repo, 'ffmpeg', logger());
    await step.run(upload(1, walk(600, 11)));
    await expect(step.run(upload(1, walk(600, 11), 2))).resolves.toBe('too_short');
    expect(log).toEqual(['store 1', 'remove 1']);
    expect(prints.size).toBe(0);
  });

  it('never fails the upload: a fingerprint error is logged and counted as failed', async () => {
    const { repo, log } = fakeRepo();
    const log2 = logger();
    await expect(new FingerprintStep(repo, 'ffmpeg', log2).run(upload(1, new Error('decoder crashed')))).resolves.toBe('failed');
    expect(log2.lines).toEqual(['warn fingerprint failed; the upload goes on without it']);
    expect(log).toEqual([]);
  });

  it('rethrows when the run is aborted', async () => {
    const { repo } = fakeRepo();
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    await expect(new FingerprintStep(repo, 'ffmpeg', logger()).run(upload(1, walk(600, 11)), controller.signal)).rejects.toThrow('run cancelled');
  });
});

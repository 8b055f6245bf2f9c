import { Counter, Histogram } from 'prom-client';
import { fingerprintFile, MIN_FINGERPRINT_SECONDS, type ComputedFingerprint } from './fingerprint.js';
import type { CandidateRow, DuplicateRecord, FingerprintDb, FingerprintRepository } from './fingerprint.repository.js';
import { align, indexKeys, isSameAudio, itemSeconds, queryKeys, type Alignment } from './matcher.js';

/** Tracks verified against the query at most (the best candidates of the index step). */
const VERIFIED_CANDIDATES = 5;
/** A candidate needs at least this many agreeing keys (near one offset) to be verified. */
const MIN_CANDIDATE_HITS = 2;
/** Offsets this close count as one (a copy's keys land a few items apart). */
const OFFSET_SPREAD = 2;

export const fingerprintMetrics = {
  runs: new Counter({
    name: 'media_fingerprint_runs_total',
    help: 'Uploads fingerprinted, by outcome (stored, duplicate, too_short, failed)',
    labelNames: ['outcome'],
  }),
  lookup: new Histogram({
    name: 'media_fingerprint_lookup_seconds',
    help: 'Duration of a duplicate lookup (index candidates + verification)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  }),
};

/** The best match of a fingerprint among the stored ones. */
export interface FingerprintMatch {
  trackId: number;
  alignment: Alignment;
}

/** The best offset of each track (neighbouring offsets summed), best tracks first. */
export function rankCandidates(rows: readonly CandidateRow[], limit = VERIFIED_CANDIDATES): { trackId: number; offset: number; hits: number }[] {
  const byTrack = new Map<number, CandidateRow[]>();
  for (const row of rows) {
    const list = byTrack.get(row.trackId) ?? [];
    list.push(row);
    byTrack.set(row.trackId, list);
  }
  const ranked: { trackId: number; offset: number; hits: number }[] = [];
  for (const [trackId, list] of byTrack) {
    let best = { offset: 0, hits: 0, own: 0 };
    for (const row of list) {
      let hits = 0;
      for (const other of list) if (Math.abs(other.offset - row.offset) <= OFFSET_SPREAD) hits += other.hits;
      if (hits > best.hits || (hits === best.hits && row.hits > best.own)) best = { offset: row.offset, hits, own: row.hits };
    }
    if (best.hits >= MIN_CANDIDATE_HITS) ranked.push({ trackId, offset: best.offset, hits: best.hits });
  }
  ranked.sort((a, b) => b.hits - a.hits || a.trackId - b.trackId);
  return ranked.slice(0, limit);
}

/**
 * Looks a fingerprint up: index candidates (bounded reads), then each of the few best tracks
 * aligned with the query; the best one that is the same audio (≥ 90 % of the shorter), or null.
 */
export async function findMatch(
  repo: FingerprintRepository,
  db: FingerprintDb,
  fp: Uint32Array,
  excludeTrackId: number | null,
): Promise<FingerprintMatch | null> {
  const candidates = rankCandidates(await repo.candidates(db, queryKeys(fp), excludeTrackId));
  if (candidates.length === 0) return null;
  const stored = await repo.fingerprints(
    db,
    candidates.map((c) => c.trackId),
  );
  let best: FingerprintMatch | null = null;
  for (const candidate of candidates) {
    const ref = stored.get(candidate.trackId);
    if (!ref) continue;
    const alignment = align(fp, ref, candidate.offset);
    if (!alignment || !isSameAudio(alignment)) continue;
    if (!best || alignment.coverage > best.alignment.coverage || (alignment.coverage === best.alignment.coverage && alignment.score > best.alignment.score)) {
      best = { trackId: candidate.trackId, alignment };
    }
  }
  return best;
}

export interface FingerprintStepLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface FingerprintUpload {
  trackId: number;
  uploadId: string;
  attempt: number;
  /** The decoded original (the run's scratch copy). */
  file: string;
  durationSeconds: number;
  /** The fingerprint the transcode computed from its own decode; without it the step decodes `file` itself. */
  computed?: ComputedFingerprint | undefined;
}

export type FingerprintOutcome = 'stored' | 'duplicate' | 'too_short' | 'failed';

/**
 * The processing run's fingerprint step. Fingerprints the original, then in one transaction under
 * the write lock: looks it up among the other tracks, replaces the track's stored fingerprint and
 * index rows, and — when it repeats another track — records the match and writes
 * `media-processing.track.duplicate-detected.v1` to the outbox (once per upload and attempt). Never
 * throws except when the run is aborted: a failure is logged and counted, the upload goes on.
 */
export class FingerprintStep {
  constructor(
    private readonly repo: FingerprintRepository,
    private readonly ffmpeg: string,
    private readonly logger: FingerprintStepLogger,
    private readonly maxSeconds?: number,
  ) {}

  async run(upload: FingerprintUpload, signal?: AbortSignal): Promise<FingerprintOutcome> {
    const outcome = await this.attempt(upload, signal).catch((err: unknown) => {
      if (signal?.aborted) throw err;
      this.logger.warn({ err, trackId: upload.trackId, uploadId: upload.uploadId }, 'fingerprint failed; the upload goes on without it');
      return 'failed' as const;
    });
    fingerprintMetrics.runs.inc({ outcome });
    return outcome;
  }

  private async attempt(upload: FingerprintUpload, signal?: AbortSignal): Promise<FingerprintOutcome> {
    const fp = upload.durationSeconds < MIN_FINGERPRINT_SECONDS ? null : await this.fingerprintOf(upload, signal);
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (!fp) {
      await this.repo.inWriteTransaction((tx) => this.repo.remove(tx, upload.trackId));
      this.logger.info({ trackId: upload.trackId, durationSeconds: upload.durationSeconds }, 'too short to fingerprint');
      return 'too_short';
    }
    const duplicate = await this.repo.inWriteTransaction(async (tx) => {
      const started = process.hrtime.bigint();
      const match = await findMatch(this.repo, tx, fp, upload.trackId);
      fingerprintMetrics.lookup.observe(Number(process.hrtime.bigint() - started) / 1e9);
      await this.repo.store(tx, upload, fp, indexKeys(fp));
      if (!match) return null;
      const record = toRecord(upload, match);
      const recorded = await this.repo.recordDuplicate(tx, record);
      return { record, recorded };
    });
    if (!duplicate) return 'stored';
    this.logger.info({ ...duplicate.record, newEvent: duplicate.recorded }, 'upload repeats the audio of another track');
    return 'duplicate';
  }

  /** What the transcode computed (its failure is this step's), else a decode of the file. */
  private async fingerprintOf(upload: FingerprintUpload, signal?: AbortSignal): Promise<Uint32Array | null> {
    const computed = upload.computed;
    if (!computed) return fingerprintFile(upload.file, { ffmpeg: this.ffmpeg, signal, maxSeconds: this.maxSeconds });
    if ('error' in computed) throw computed.error;
    return computed.fingerprint;
  }
}

export function toRecord(upload: Pick<FingerprintUpload, 'trackId' | 'uploadId' | 'attempt'>, match: FingerprintMatch): DuplicateRecord {
  const a = match.alignment;
  return {
    trackId: upload.trackId,
    uploadId: upload.uploadId,
    attempt: upload.attempt,
    duplicateOfTrackId: match.trackId,
    trackStartSeconds: itemSeconds(a.queryStart),
    trackEndSeconds: itemSeconds(a.queryEnd),
    duplicateStartSeconds: itemSeconds(a.refStart),
    duplicateEndSeconds: itemSeconds(a.refEnd),
    coverage: Math.round(a.coverage * 1000) / 1000,
    score: Math.round(a.score * 1000) / 1000,
  };
}

import { sql, type Sql, type SqlExecutor } from '@msp/db';
import { TrackDuplicateDetected, writeOutbox, type TransactionalClient } from '@msp/events';
import { fingerprintFromBytes, fingerprintToBytes } from './fingerprint.js';
import type { IndexKeys } from './matcher.js';

/**
 * A Prisma client or an open transaction (any raw-SQL executor): reads run in either; writes take a
 * transaction, the one whose lock `lockWrites` took.
 */
export type FingerprintDb = SqlExecutor;

/** One (track, offset) the index suggests, with the number of query keys that agree on it. */
export interface CandidateRow {
  trackId: number;
  offset: number;
  hits: number;
}

/** What the uploaded track matched, in the event's terms. */
export interface DuplicateRecord {
  trackId: number;
  uploadId: string;
  attempt: number;
  duplicateOfTrackId: number;
  trackStartSeconds: number;
  trackEndSeconds: number;
  duplicateStartSeconds: number;
  duplicateEndSeconds: number;
  coverage: number;
  score: number;
}

/**
 * A key with more index entries than this is left out of a lookup (read up to here, then dropped):
 * shared by very many tracks, it says little about any of them. Cutting its list instead would keep
 * the lowest track ids and always lose the newest tracks. With 24-bit keys a track over ~2 min
 * stores keys of level 5 only (2^19 of them): about 100 entries per key at 1,000,000 tracks, so
 * 256 leaves ordinary keys whole up to ~2,000,000 tracks (docs/fingerprints.md, "Scale").
 */
export const MAX_KEY_ENTRIES = 256;
/** (track, offset) pairs the candidate step returns, best first. */
export const CANDIDATE_ROWS = 200;
/** The candidate statement: for each of the keys (at their positions), its index entries counted per track and offset, leaving out `excludeTrackId` (or none). */
export function candidatesSql(keys: IndexKeys, excludeTrackId: number | null): Sql {
  return sql`SELECT h.track_id AS "trackId", (h.pos - q.qpos)::int AS "offset", count(*)::int AS hits
     FROM unnest(${keys.hashes}::int4[], ${keys.positions}::int4[]) AS q(hash, qpos)
     CROSS JOIN LATERAL (
       SELECT e.track_id, e.pos, count(*) OVER () AS entries
       FROM (SELECT f.track_id, f.pos FROM fingerprint_hash f WHERE f.hash = q.hash LIMIT ${MAX_KEY_ENTRIES} + 1) e
     ) h
     WHERE h.entries <= ${MAX_KEY_ENTRIES} AND h.track_id IS DISTINCT FROM ${excludeTrackId}::int
     GROUP BY 1, 2
     ORDER BY hits DESC, 1, 2
     LIMIT ${CANDIDATE_ROWS}`;
}

/** Every fingerprint write takes this transaction-level lock: two copies processed at once still see each other. */
const WRITE_LOCK = 0x6d7370_6670; // "msp" "fp"

/**
 * The fingerprint tables (docs/fingerprints.md): `track_fingerprint` (one raw fingerprint per track),
 * `fingerprint_hash` (the inverted index) and `fingerprint_match` (one row per upload found to repeat
 * another track, written with its outbox event).
 */
export class FingerprintRepository {
  constructor(private readonly client: TransactionalClient) {}

  /**
   * Runs `work` in one transaction holding the fingerprint write lock: lookups and writes of two
   * uploads processed at once are serialised, so the second one sees the first.
   */
  inWriteTransaction<T>(work: (tx: FingerprintDb) => Promise<T>): Promise<T> {
    return this.client.$transaction(
      async (tx) => {
        await tx.$executeRaw(sql`SELECT pg_advisory_xact_lock(${WRITE_LOCK}::bigint)`);
        return work(tx);
      },
      { maxWait: 30_000, timeout: 60_000 },
    );
  }

  /**
   * The candidate step: for each query key, its index entries (an index-only scan of the primary key,
   * at most MAX_KEY_ENTRIES + 1 read; a key with more is dropped), counted per track and offset
   * (reference position − query position).
   */
  async candidates(db: FingerprintDb, keys: IndexKeys, excludeTrackId: number | null): Promise<CandidateRow[]> {
    if (keys.hashes.length === 0) return [];
    return db.$queryRaw<CandidateRow[]>(candidatesSql(keys, excludeTrackId));
  }

  /** The stored fingerprints of these tracks. */
  async fingerprints(db: FingerprintDb, trackIds: readonly number[]): Promise<Map<number, Uint32Array>> {
    if (trackIds.length === 0) return new Map();
    const rows = await db.$queryRaw<{ trackId: number; fingerprint: Uint8Array }[]>(
      sql`SELECT track_id AS "trackId", fingerprint FROM track_fingerprint WHERE track_id = ANY(${[...trackIds]}::int4[])`,
    );
    return new Map(rows.map((r) => [r.trackId, fingerprintFromBytes(r.fingerprint)]));
  }

  /**
   * Stores a track's fingerprint and its index rows, replacing what an earlier run or upload of the
   * track wrote (the rows it listed are deleted through the primary key): a retry never duplicates.
   */
  async store(tx: FingerprintDb, track: { trackId: number; uploadId: string; attempt: number }, fp: Uint32Array, keys: IndexKeys): Promise<void> {
    await this.dropIndexRows(tx, track.trackId);
    if (keys.hashes.length > 0) {
      await tx.$executeRaw(
        sql`INSERT INTO fingerprint_hash (hash, track_id, pos) SELECT hash, ${track.trackId}, pos FROM unnest(${keys.hashes}::int4[], ${keys.positions}::int4[]) AS n(hash, pos)
         ON CONFLICT DO NOTHING`,
      );
    }
    await tx.$executeRaw(
      sql`INSERT INTO track_fingerprint (track_id, upload_id, attempt, items, fingerprint, index_hashes, index_positions, updated_at)
       VALUES (${track.trackId}, ${track.uploadId}::uuid, ${track.attempt}, ${fp.length}, ${fingerprintToBytes(fp)}, ${keys.hashes}::int4[], ${keys.positions}::int4[], now())
       ON CONFLICT (track_id) DO UPDATE SET upload_id = EXCLUDED.upload_id, attempt = EXCLUDED.attempt, items = EXCLUDED.items,
         fingerprint = EXCLUDED.fingerprint, index_hashes = EXCLUDED.index_hashes, index_positions = EXCLUDED.index_positions, updated_at = now()`,
    );
  }

  /** A track too short to fingerprint drops what an earlier upload of it stored. */
  async remove(tx: FingerprintDb, trackId: number): Promise<void> {
    await this.dropIndexRows(tx, trackId);
    await tx.$executeRaw(sql`DELETE FROM track_fingerprint WHERE track_id = ${trackId}`);
  }

  /** Deletes the index rows the track's stored fingerprint lists (through the primary key). */
  private async dropIndexRows(tx: FingerprintDb, trackId: number): Promise<void> {
    const old = await tx.$queryRaw<{ hashes: number[] | null; positions: number[] | null }[]>(
      sql`SELECT index_hashes AS hashes, index_positions AS positions FROM track_fingerprint WHERE track_id = ${trackId} FOR UPDATE`,
    );
    const previous = old[0];
    if (!previous?.hashes?.length) return;
    await tx.$executeRaw(
      sql`DELETE FROM fingerprint_hash f USING unnest(${previous.hashes}::int4[], ${previous.positions ?? []}::int4[]) AS o(hash, pos)
       WHERE f.hash = o.hash AND f.pos = o.pos AND f.track_id = ${trackId}`,
    );
  }

  /**
   * Records the match of an upload and attempt, and writes its event in the same transaction; a
   * retry finds the row and writes nothing. True when this call recorded it.
   */
  async recordDuplicate(tx: FingerprintDb, match: DuplicateRecord): Promise<boolean> {
    const n = await tx.$executeRaw(
      sql`INSERT INTO fingerprint_match (upload_id, attempt, track_id, matched_track_id, track_start_seconds, track_end_seconds,
         matched_start_seconds, matched_end_seconds, coverage, score)
       VALUES (${match.uploadId}::uuid, ${match.attempt}, ${match.trackId}, ${match.duplicateOfTrackId}, ${match.trackStartSeconds}, ${match.trackEndSeconds},
         ${match.duplicateStartSeconds}, ${match.duplicateEndSeconds}, ${match.coverage}, ${match.score})
       ON CONFLICT (upload_id, attempt) DO NOTHING`,
    );
    if (n === 0) return false;
    await writeOutbox(tx, TrackDuplicateDetected, match);
    return true;
  }
}

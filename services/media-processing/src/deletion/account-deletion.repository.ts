import { sql } from '@msp/db';
import type { PrismaClient } from '../generated/prisma/client.js';

/** A job of the deleted user, with what names its objects. */
export interface DoomedJob {
  id: string;
  trackId: number;
  bucket: string;
  originalKey: string;
  coverKey: string | null;
  publicId: string;
  running: boolean;
}

/**
 * The SQL of account deletion in media-processing (docs/account-control.md): the user's jobs and
 * the fingerprints of their tracks. Each statement is small and idempotent (it deletes what is
 * still there), so a restart repeats the work left and nothing else.
 */
export class MediaAccountDeletionRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The next jobs of the user (any state), oldest first. */
  async nextJobs(userId: number, limit: number): Promise<DoomedJob[]> {
    return this.prisma.$queryRaw<DoomedJob[]>(
      sql`SELECT id::text AS id, track_id AS "trackId", bucket, original_key AS "originalKey", cover_key AS "coverKey",
              public_id::text AS "publicId", state = 'RUNNING' AS running
         FROM jobs WHERE artist_id = ${userId} ORDER BY created_at, id LIMIT ${limit}`,
    );
  }

  /**
   * A track's fingerprint, its index rows (through the primary key, as a replacement deletes them)
   * and the duplicate matches of its uploads, in one transaction. Matches of others' uploads
   * against it stay: they are those uploads' record (they name a track id, never a user).
   */
  async deleteTrackFingerprints(trackId: number): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw(
        sql`DELETE FROM fingerprint_hash f
          USING (SELECT unnest(index_hashes) AS hash, unnest(index_positions) AS pos FROM track_fingerprint WHERE track_id = ${trackId}) o
          WHERE f.hash = o.hash AND f.pos = o.pos AND f.track_id = ${trackId}`,
      );
      await tx.$executeRaw(sql`DELETE FROM track_fingerprint WHERE track_id = ${trackId}`);
      await tx.$executeRaw(sql`DELETE FROM fingerprint_match WHERE track_id = ${trackId}`);
    });
  }

  /** The job rows (a running one's worker loses its lease at its next heartbeat and stops without reporting). */
  async deleteJobs(ids: string[]): Promise<void> {
    await this.prisma.$executeRaw(sql`DELETE FROM jobs WHERE id = ANY(${ids}::uuid[])`);
  }
}

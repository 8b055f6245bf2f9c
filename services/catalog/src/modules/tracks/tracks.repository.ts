import { sql } from '@msp/db';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { trackSelect, type TrackRow } from './track.mapper.js';

/** A transaction handle, opaque to services: they pass it back to repository methods and the outbox. */
export type Tx = Prisma.TransactionClient;
type Db = PrismaClient | Tx;

/** Public and FINISHED, not deleted (R2): what everybody may see of someone else's tracks. */
export const PUBLIC_TRACK: Prisma.TrackWhereInput = { deletedAt: null, isPrivate: false, heldBack: false, state: 'FINISHED' };

export { uniqueViolationTarget } from '../../unique-violation.js';

/** Where a track's upload lies, for another processing attempt (TRK-4). */
export interface OriginalUpload {
  originalKey: string | null;
  originalFormat: string | null;
  originalSize: bigint | null;
  coverUploadKey: string | null;
}

/** What a new upload stores (TRK-1, TRK-2). */
export interface NewTrack {
  artistId: number;
  title: string;
  trackSlug: string;
  description: string | null;
  genre: string;
  tags: string[];
  releaseDate: Date;
  isPrivate: boolean;
  access: 'PLAYABLE' | 'PREVIEW' | 'BLOCKED';
  secretToken: string;
  uploadId: string;
  originalKey: string;
  originalFormat: string;
  originalSize: number;
  coverUploadKey: string | null;
}

/** Metadata a TRK-8 update may change (undefined: unchanged). */
export interface TrackChanges {
  title?: string;
  genre?: string;
  tags?: string[];
  description?: string | null;
  releaseDate?: Date;
  isPrivate?: boolean;
  access?: 'PLAYABLE' | 'PREVIEW' | 'BLOCKED';
  coverKey?: string | null;
  publishedAt?: Date;
}

/**
 * Track writes and the cold reads around them, on Prisma (the hot reads are SQL on the pg pool:
 * `TrackReadsRepository`). Every method that is part of a bigger change takes the transaction.
 */
export class TracksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(fn);
  }

  findById(id: number, db: Db = this.prisma): Promise<TrackRow | null> {
    return db.track.findUnique({ where: { id }, select: trackSelect });
  }

  /** R12: every non-deleted track in any state counts against the FREE quota. */
  countOwned(artistId: number, db: Db = this.prisma): Promise<number> {
    return db.track.count({ where: { artistId, deletedAt: null } });
  }

  /** R9 trackCount: public FINISHED tracks. */
  countPublic(artistId: number, db: Db): Promise<number> {
    return db.track.count({ where: { artistId, ...PUBLIC_TRACK } });
  }

  /** The first free slug among `base`, `base-2`, `base-3`, … (one query). */
  async freeSlug(base: string, db: Db): Promise<string> {
    const taken = await db.track.findMany({
      where: { OR: [{ trackSlug: base }, { trackSlug: { startsWith: `${base}-` } }] },
      select: { trackSlug: true },
    });
    const used = new Set(taken.map((t) => t.trackSlug));
    if (!used.has(base)) return base;
    for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  /** R12 under a per-artist lock: two parallel uploads of one artist run this part one at a time. */
  async lockArtist(tx: Tx, artistId: number): Promise<void> {
    await tx.$executeRaw(sql`SELECT pg_advisory_xact_lock(4242, ${artistId})`);
  }

  async uploadIdTaken(tx: Tx, uploadId: string): Promise<boolean> {
    return !!(await tx.track.findUnique({ where: { uploadId }, select: { id: true } }));
  }

  create(tx: Tx, track: NewTrack): Promise<TrackRow> {
    return tx.track.create({
      data: {
        ...track,
        genreKey: track.genre.toLowerCase(),
        originalSize: BigInt(track.originalSize),
        state: 'UPLOADING',
        statusStep: 'Upload received',
        statusProgress: 5,
      },
      select: trackSelect,
    });
  }

  /** The artist's R9 trackCount on catalog's own projection row. */
  async setTrackCount(tx: Tx, artistId: number, trackCount: number): Promise<void> {
    await tx.userSummary.updateMany({ where: { userId: artistId }, data: { trackCount } });
  }

  /** TRK-4: a FAILED track back to PROCESSING, with what the worker needs to start again. */
  async restartProcessing(tx: Tx, trackId: number): Promise<{ original: OriginalUpload; next: TrackRow & { processingAttempt: number } }> {
    const original = await tx.track.findUniqueOrThrow({
      where: { id: trackId },
      select: { originalKey: true, originalFormat: true, originalSize: true, coverUploadKey: true },
    });
    const next = await tx.track.update({
      where: { id: trackId, state: 'FAILED' },
      data: {
        state: 'PROCESSING',
        processingAttempt: { increment: 1 },
        statusStep: 'Processing started',
        statusProgress: 20,
        errorMessage: null,
        statusUpdatedAt: new Date(),
      },
      select: { ...trackSelect, processingAttempt: true },
    });
    return { original, next };
  }

  update(tx: Tx, trackId: number, changes: TrackChanges): Promise<TrackRow> {
    const data: Prisma.TrackUpdateInput = { ...changes };
    if (changes.genre !== undefined) data.genreKey = changes.genre.toLowerCase();
    return tx.track.update({ where: { id: trackId }, data, select: trackSelect });
  }

  /** TRK-9: soft delete; the track leaves histories and every playlist (R6). The object keys to remove. */
  async softDelete(tx: Tx, trackId: number): Promise<string[]> {
    const full = await tx.track.update({
      where: { id: trackId },
      data: { deletedAt: new Date() },
      select: { coverKey: true, waveformKey: true, originalKey: true, coverUploadKey: true, waveformJsonKey: true },
    });
    await tx.listeningHistory.deleteMany({ where: { trackId } });
    await tx.playlistTrack.deleteMany({ where: { trackId } });
    return [full.originalKey, full.coverUploadKey, full.coverKey, full.waveformKey, full.waveformJsonKey].filter((k): k is string => !!k);
  }

  async setSecretToken(trackId: number, secretToken: string): Promise<{ secretToken: string }> {
    return this.prisma.track.update({ where: { id: trackId }, data: { secretToken }, select: { secretToken: true } });
  }

  async username(userId: number): Promise<string | null> {
    return (await this.prisma.userSummary.findUnique({ where: { userId }, select: { username: true } }))?.username ?? null;
  }

  /** TRK-19: the stored original. */
  original(trackId: number): Promise<{ originalKey: string | null; originalFormat: string | null }> {
    return this.prisma.track.findUniqueOrThrow({ where: { id: trackId }, select: { originalKey: true, originalFormat: true } });
  }
}

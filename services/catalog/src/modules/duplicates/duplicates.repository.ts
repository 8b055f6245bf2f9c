import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { trackSelect, type TrackRow } from '../tracks/track.mapper.js';

type Tx = Prisma.TransactionClient;
/** The client the duplicates consumers run their transactions on. */
export type DuplicatesDb = PrismaClient;

/** A track as duplicate detection needs it: the row events are written from, and the attempt it waits for. */
export type DuplicateTrackRow = TrackRow & { processingAttempt: number };

/**
 * Writes of duplicate detection's consequences (docs/fingerprints.md), inside the consumers'
 * transactions: the held-back flag and the SND-1 report's `duplicateOf`.
 */
export const duplicatesRepository = {
  track(tx: Tx, trackId: number): Promise<DuplicateTrackRow | null> {
    return tx.track.findUnique({ where: { id: trackId }, select: { ...trackSelect, processingAttempt: true } });
  },

  /** SND-1's `duplicateOf` (same artist): kept next to the loudness series, which a rerun replaces without touching it. */
  async setDuplicateOf(tx: Tx, trackId: number, duplicateOf: number): Promise<void> {
    await tx.trackSoundReport.upsert({
      where: { trackId },
      create: { trackId, duplicateOf },
      update: { duplicateOf },
      select: { trackId: true },
    });
  },

  /** Sets or clears the flag; the row after the change, or null when it already had that value. */
  async setHeldBack(tx: Tx, trackId: number, heldBack: boolean): Promise<TrackRow | null> {
    const changed = await tx.track.updateMany({ where: { id: trackId, heldBack: !heldBack }, data: { heldBack } });
    if (changed.count === 0) return null;
    return tx.track.findUnique({ where: { id: trackId }, select: trackSelect });
  },
};

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { trackSelect, type TrackRow } from './track.mapper.js';

/** The client the processing consumer reads its events with, and the transaction it hands back here. */
export type ProcessingDb = PrismaClient;
export type ProcessingTx = Prisma.TransactionClient;

/** The track as the processing events see it: the wire row and the attempt it belongs to. */
export type ProcessingRow = TrackRow & { processingAttempt: number };

/** What a finished run stored (keys in catalog's bucket), as media-processing reports it. */
export interface ProcessedMedia {
  durationSeconds: number;
  progressiveKey: string;
  hlsPlaylistKey: string;
  hlsPrefix: string;
  previewKey: string;
  waveformKey: string;
  waveformJsonKey: string;
  coverKey: string | null;
}

/**
 * The track-state writes of media processing (R11), inside the processing consumer's transaction.
 * Each answers the track's row after the change.
 */
export const processingRepository = {
  /** The track when it is still on this upload and attempt; null when gone or superseded. */
  async current(tx: ProcessingTx, trackId: number, uploadId: string, attempt: number): Promise<ProcessingRow | null> {
    const row = await tx.track.findUnique({ where: { id: trackId }, select: { ...trackSelect, processingAttempt: true } });
    if (!row || row.uploadId !== uploadId || row.processingAttempt !== attempt) return null;
    return row;
  },

  /** PROCESSING, at a step and percentage. */
  progress(tx: ProcessingTx, trackId: number, step: string, progress: number): Promise<TrackRow> {
    return tx.track.update({
      where: { id: trackId },
      data: { state: 'PROCESSING', statusStep: step, statusProgress: progress, statusUpdatedAt: new Date() },
      select: trackSelect,
    });
  },

  /** FINISHED with the stored renditions; a public track never published before is published now. */
  finished(tx: ProcessingTx, row: Pick<TrackRow, 'id' | 'isPrivate' | 'publishedAt'>, media: ProcessedMedia): Promise<TrackRow> {
    return tx.track.update({
      where: { id: row.id },
      data: {
        state: 'FINISHED',
        durationSeconds: Math.max(0, Math.round(media.durationSeconds)),
        progressiveKey: media.progressiveKey,
        hlsPlaylistKey: media.hlsPlaylistKey,
        hlsPrefix: media.hlsPrefix,
        previewKey: media.previewKey,
        waveformKey: media.waveformKey,
        waveformJsonKey: media.waveformJsonKey,
        ...(media.coverKey ? { coverKey: media.coverKey } : {}),
        statusStep: 'Done',
        statusProgress: 100,
        errorMessage: null,
        statusUpdatedAt: new Date(),
        ...(!row.isPrivate && !row.publishedAt ? { publishedAt: new Date() } : {}),
      },
      select: trackSelect,
    });
  },

  /** FAILED, with media-processing's message. */
  failed(tx: ProcessingTx, trackId: number, errorMessage: string): Promise<TrackRow> {
    return tx.track.update({
      where: { id: trackId },
      data: { state: 'FAILED', statusStep: 'Processing failed', statusProgress: null, errorMessage, statusUpdatedAt: new Date() },
      select: trackSelect,
    });
  },
};

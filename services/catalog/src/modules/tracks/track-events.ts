import { UploadStepSchema, type Track, type TrackState, type UploadStatusMessage } from '@msp/contracts';
import { ArtistTrackCountChanged, TrackChanged, TrackPublished, TrackUploadStatus, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import { toSnapshot, type TrackRow } from './track.mapper.js';
import type { TrackPresenter } from './track-presenter.js';
import type { TracksRepository, Tx } from './tracks.repository.js';

/** A track counts for trackCount (R9) when public, FINISHED, not deleted and not held back (docs/fingerprints.md). */
export const counted = (row: { isPrivate: boolean; heldBack: boolean; state: TrackState; deletedAt: Date | null }) =>
  !row.isPrivate && !row.heldBack && row.state === 'FINISHED' && !row.deletedAt;

/**
 * The events a track change writes in its transaction (outbox): TrackChanged, TrackPublished the
 * first time (R2), the artist's count (R9) and the WS-2 upload status. Used by the upload and
 * lifecycle services and by the processing consumer.
 */
export class TrackEvents {
  constructor(
    private readonly repo: Pick<TracksRepository, 'countPublic' | 'setTrackCount'>,
    private readonly presenter: Pick<TrackPresenter, 'assetUrl' | 'presentOne'>,
  ) {}

  async emitChanged(tx: Tx, row: TrackRow, correlationId: string | null) {
    await writeOutbox(tx, TrackChanged, toSnapshot(row, this.presenter.assetUrl(row.coverKey)), { correlationId });
  }

  /** R9: the artist's trackCount changed; catalog's own projection row and the event (identity, social). */
  async recount(tx: Tx, artistId: number, correlationId: string | null) {
    const trackCount = await this.repo.countPublic(artistId, tx);
    await this.repo.setTrackCount(tx, artistId, trackCount);
    await writeOutbox(tx, ArtistTrackCountChanged, { userId: artistId, trackCount }, { correlationId });
  }

  /** Events after a change of privacy, state or deletion: TrackChanged, TrackPublished the first time (R2), the count. */
  async afterChange(tx: Tx, before: TrackRow | null, after: TrackRow, correlationId: string | null) {
    await this.emitChanged(tx, after, correlationId);
    if (!before?.publishedAt && after.publishedAt) {
      await writeOutbox(tx, TrackPublished, toSnapshot(after, this.presenter.assetUrl(after.coverKey)), { correlationId });
    }
    if ((before ? counted(before) : false) !== counted(after)) await this.recount(tx, after.artistId, correlationId);
  }

  /** WS-2 record (the UploadStatusMessage record) from the stored status. */
  statusMessage(row: TrackRow, trackResponse: Track | null): UploadStatusMessage {
    const failed = row.state === 'FAILED';
    const progress = failed ? null : (row.statusProgress ?? 0);
    const step = UploadStepSchema.safeParse(row.statusStep);
    return {
      uploadId: row.uploadId,
      trackId: row.id,
      trackState: row.state,
      status: row.state,
      progressPercentage: progress,
      progressPercent: progress,
      stepName: step.success ? step.data : null,
      errorMessage: failed ? (row.errorMessage ?? 'Processing failed') : null,
      trackResponse: row.state === 'FINISHED' ? trackResponse : null,
      updatedAt: row.statusUpdatedAt.toISOString(),
    };
  }

  /** The uploader's view, without social calls (used inside event transactions). */
  async ownerView(row: TrackRow): Promise<Track | null> {
    const owner: Caller = { userId: row.artistId, role: 'ARTIST', tier: 'FREE', sessionId: null, username: null };
    return this.presenter.presentOne(row, owner, { offline: true });
  }

  async publishStatus(tx: Tx, row: TrackRow, correlationId: string | null) {
    const trackResponse = row.state === 'FINISHED' ? await this.ownerView(row) : null;
    await writeOutbox(
      tx,
      TrackUploadStatus,
      { uploadId: row.uploadId, artistId: row.artistId, trackId: row.id, status: this.statusMessage(row, trackResponse) },
      { correlationId },
    );
  }
}

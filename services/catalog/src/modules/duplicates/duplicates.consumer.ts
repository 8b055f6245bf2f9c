import {
  CopyrightHoldDismissed,
  DurableConsumer,
  TrackDuplicateDetected,
  TrackDuplicateFound,
  writeOutbox,
  type NatsConnection,
  type RelayLogger,
} from '@msp/events';
import type { TrackEvents } from '../tracks/track-events.js';
import { duplicatesRepository as repo, type DuplicatesDb } from './duplicates.repository.js';

interface Options {
  nc: NatsConnection;
  prisma: DuplicatesDb;
  logger: RelayLogger;
  events: TrackEvents;
}

/**
 * Duplicate detection's consequences in catalog (docs/fingerprints.md). media-processing's
 * TrackDuplicateDetected → the same artist's audio: SND-1's `duplicateOf`; another artist's: the
 * new track is held back (TrackChanged carries `heldBack`, the artist's count drops). Either way
 * TrackDuplicateFound tells social (the COPYRIGHT report) and notification (both artists).
 * Events of an older attempt, of a deleted track or about a deleted original are ignored.
 */
export function duplicatesConsumer(options: Options) {
  const { events } = options;
  return new DurableConsumer({
    nc: options.nc,
    db: options.prisma,
    logger: options.logger,
    service: 'catalog',
    name: 'duplicates',
    from: 'media-processing',
  }).on(TrackDuplicateDetected, async (d, envelope, tx) => {
    const row = await repo.track(tx, d.trackId);
    if (!row || row.deletedAt || row.uploadId !== d.uploadId || row.processingAttempt !== d.attempt) return;
    const original = await repo.track(tx, d.duplicateOfTrackId);
    if (!original || original.deletedAt || original.id === row.id) return;
    const sameArtist = original.artistId === row.artistId;
    if (sameArtist) {
      await repo.setDuplicateOf(tx, row.id, original.id);
    } else {
      const next = await repo.setHeldBack(tx, row.id, true);
      if (next) await events.afterChange(tx, row, next, envelope.correlationId);
    }
    await writeOutbox(
      tx,
      TrackDuplicateFound,
      {
        trackId: row.id,
        artistId: row.artistId,
        title: row.title,
        duplicateOfTrackId: original.id,
        duplicateArtistId: original.artistId,
        duplicateTitle: original.title,
        sameArtist,
        heldBack: !sameArtist,
        evidence: {
          trackStartSeconds: d.trackStartSeconds,
          trackEndSeconds: d.trackEndSeconds,
          duplicateStartSeconds: d.duplicateStartSeconds,
          duplicateEndSeconds: d.duplicateEndSeconds,
          coverage: d.coverage,
          score: d.score,
        },
        at: envelope.occurredAt,
      },
      { correlationId: envelope.correlationId },
    );
  });
}

/** social's CopyrightHoldDismissed (an admin dismissed the COPYRIGHT report, MOD-7): the track is released. */
export function copyrightHoldsConsumer(options: Options) {
  const { events } = options;
  return new DurableConsumer({
    nc: options.nc,
    db: options.prisma,
    logger: options.logger,
    service: 'catalog',
    name: 'copyright-holds',
    from: 'social',
  }).on(CopyrightHoldDismissed, async (d, envelope, tx) => {
    const row = await repo.track(tx, d.trackId);
    if (!row || row.deletedAt || !row.heldBack) return;
    const next = await repo.setHeldBack(tx, row.id, false);
    if (next) await events.afterChange(tx, row, next, envelope.correlationId);
  });
}

import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, TrackDeleted, TrackDuplicateFound, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import type { ReportsRepository } from './reports.repository.js';

/**
 * Duplicate detection (docs/fingerprints.md): catalog held back a new upload that repeats another
 * artist's track. Social files a COPYRIGHT report on it, with no reporter and the match as
 * evidence, for the admins' queue (MOD-4). Dismissing it (MOD-7) releases the track. The snapshot
 * comes from social's copies when they are there, else from the event (the copy may lag). When the
 * held-back track is deleted (MOD-11, or by its artist), the report is closed: RESOLVED, resolution
 * 'track removed'. Both events come in catalog's order on this one consumer, so the report is
 * always filed before its track's deletion is read.
 */
export async function startDuplicateReports<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
  reports: ReportsRepository;
}): Promise<DurableConsumer<Tx>> {
  const { reports } = options;
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'social', name: 'duplicate-reports', from: 'catalog' })
    .on(TrackDuplicateFound, async (d, envelope, tx) => {
      if (d.sameArtist || !d.heldBack) return;
      const copy = await reports.trackSnapshot(d.trackId, tx);
      const artist = copy ?? (await reports.userNames(d.artistId, tx));
      await reports.insert(
        {
          reporterId: null,
          reporterUsername: null,
          targetType: 'TRACK',
          targetId: d.trackId,
          reason: 'COPYRIGHT',
          description: `Duplicate detection: the audio repeats track ${d.duplicateOfTrackId} ("${d.duplicateTitle}") of another artist.`,
          targetUserId: d.artistId,
          targetUsername: artist.artistUsername,
          targetDisplayName: artist.artistDisplayName,
          targetTitle: copy?.title ?? d.title,
          targetArtistName: artist.artistDisplayName,
          targetThumbnailUrl: copy?.coverUrl ?? null,
          targetPlayCount: null,
          targetCreatedAt: copy?.createdAt ?? new Date(envelope.occurredAt),
          commentContent: null,
          commentAuthor: null,
          evidence: {
            matchedTrackId: d.duplicateOfTrackId,
            matchedArtistId: d.duplicateArtistId,
            trackStartSeconds: d.evidence.trackStartSeconds,
            trackEndSeconds: d.evidence.trackEndSeconds,
            matchedStartSeconds: d.evidence.duplicateStartSeconds,
            matchedEndSeconds: d.evidence.duplicateEndSeconds,
            coverage: d.evidence.coverage,
            score: d.evidence.score,
          },
        },
        tx,
      );
    })
    .on(TrackDeleted, async (d, _envelope, tx) => {
      await reports.resolveDuplicateHolds(d.trackId, tx);
    });
  await consumer.start();
  return consumer;
}

import { z } from 'zod';
import { defineEvent } from '../envelope.js';

const Id = z.number().int().positive();
const Count = z.number().int().min(0);

/**
 * An upload committed: the original is in catalog's bucket under `originalKey`. The media worker
 * consumes it (also for TRK-4 retries, with a higher `attempt`).
 */
export const TrackUploaded = defineEvent(
  'catalog.track.uploaded.v1',
  z.object({
    trackId: Id,
    uploadId: z.uuid(),
    artistId: Id,
    bucket: z.string(),
    originalKey: z.string(),
    /** Format judged from the content (R11): mp3, wav, flac, aac, m4a, ogg. */
    format: z.string(),
    sizeBytes: z.number().int().min(0),
    /** Cover image uploaded with the track, stored as is; the worker resizes it. */
    coverKey: z.string().nullable(),
    attempt: z.number().int().min(1),
  }),
);

/**
 * The UploadStatusMessage record of WS-2 (docs/api.md), as catalog last set it. Notification sends it
 * on /topic/track-status/{uploadId} to the uploader's sessions and keeps it for late subscribers.
 * `status` is the exact wire record (including trackResponse on FINISHED).
 */
export const TrackUploadStatus = defineEvent(
  'catalog.track.upload-status.v1',
  z.object({ uploadId: z.uuid(), artistId: Id, trackId: Id.nullable(), status: z.record(z.string(), z.unknown()) }),
);

/**
 * What other services keep of a track (social: likes, comments, visibility; messaging: shares).
 * Sent on every change that matters to them (create, state, privacy, access, title, publish).
 */
export const TrackSnapshotSchema = z.object({
  trackId: Id,
  artistId: Id,
  title: z.string(),
  trackSlug: z.string(),
  state: z.enum(['UPLOADING', 'PROCESSING', 'FINISHED', 'FAILED']),
  isPrivate: z.boolean(),
  access: z.enum(['PLAYABLE', 'PREVIEW', 'BLOCKED']),
  durationSeconds: z.number().int().min(0).nullable(),
  coverUrl: z.string().nullable(),
  genre: z.string(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  /**
   * Held back after duplicate detection matched another artist's track (docs/fingerprints.md):
   * out of every public list, station, feed and search until an admin dismisses the report.
   * Absent in events written before it existed (= false).
   */
  heldBack: z.boolean().optional(),
});
export type TrackSnapshot = z.infer<typeof TrackSnapshotSchema>;

export const TrackChanged = defineEvent('catalog.track.changed.v1', TrackSnapshotSchema);

/** First time public and FINISHED (R2): followers' feeds get TRACK_POSTED. */
export const TrackPublished = defineEvent('catalog.track.published.v1', TrackSnapshotSchema);

export const TrackDeleted = defineEvent('catalog.track.deleted.v1', z.object({ trackId: Id, artistId: Id, byAdmin: z.boolean() }));

/**
 * Catalog's reading of media-processing's TrackDuplicateDetected (docs/fingerprints.md): the new
 * upload `trackId` repeats `duplicateOfTrackId`. `sameArtist` → the artist is told, nothing held
 * back; otherwise the new track is held back (`heldBack`), social files a COPYRIGHT report and
 * notification tells both artists. Sent once per upload attempt.
 */
export const TrackDuplicateFound = defineEvent(
  'catalog.track.duplicate-found.v1',
  z.object({
    trackId: Id,
    artistId: Id,
    title: z.string(),
    duplicateOfTrackId: Id,
    duplicateArtistId: Id,
    duplicateTitle: z.string(),
    sameArtist: z.boolean(),
    heldBack: z.boolean(),
    /** Seconds of the matched stretch in each track, and its score (as media-processing measured). */
    evidence: z.object({
      trackStartSeconds: z.number().min(0),
      trackEndSeconds: z.number().min(0),
      duplicateStartSeconds: z.number().min(0),
      duplicateEndSeconds: z.number().min(0),
      coverage: z.number().min(0).max(1),
      score: z.number().min(0).max(1),
    }),
    at: z.string(),
  }),
);

/** Public FINISHED tracks of a user changed (identity and social keep trackCount). */
export const ArtistTrackCountChanged = defineEvent('catalog.artist.track-count-changed.v1', z.object({ userId: Id, trackCount: Count }));

export const PlaylistSnapshotSchema = z.object({
  playlistId: Id,
  ownerId: Id,
  title: z.string(),
  playlistSlug: z.string(),
  isPrivate: z.boolean(),
  coverArtUrl: z.string().nullable(),
  createdAt: z.string(),
});
export type PlaylistSnapshot = z.infer<typeof PlaylistSnapshotSchema>;

export const PlaylistChanged = defineEvent('catalog.playlist.changed.v1', PlaylistSnapshotSchema);
export const PlaylistDeleted = defineEvent('catalog.playlist.deleted.v1', z.object({ playlistId: Id, ownerId: Id }));

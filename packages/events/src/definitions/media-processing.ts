import { z } from 'zod';
import { defineEvent } from '../envelope.js';

const Id = z.number().int().positive();

/** A processing step reached (API.md §4 UploadStep names and progress). Catalog relays it to WS-2. */
export const TrackProcessingProgress = defineEvent(
  'media-processing.track.progress.v1',
  z.object({
    trackId: Id,
    uploadId: z.uuid(),
    attempt: z.number().int().min(1),
    stepName: z.string(),
    progress: z.number().int().min(0).max(100),
  }),
);

/** Every rendition is stored (keys in catalog's bucket); catalog marks the track FINISHED. */
export const TrackProcessed = defineEvent(
  'media-processing.track.processed.v1',
  z.object({
    trackId: Id,
    uploadId: z.uuid(),
    attempt: z.number().int().min(1),
    durationSeconds: z.number().min(0),
    /** AAC in MP4, 256 kbps (R4), answers range requests. */
    progressiveKey: z.string(),
    /** HLS playlist (AAC 128 kbps, 6-s segments); segments live under `hlsPrefix`. */
    hlsPlaylistKey: z.string(),
    hlsPrefix: z.string(),
    previewKey: z.string(),
    /** BBC audiowaveform JSON v2. */
    waveformJsonKey: z.string(),
    /** JSON array of the normalized peaks the clients draw (values 0..1). */
    waveformKey: z.string(),
    coverKey: z.string().nullable(),
  }),
);

/** Processing gave up (undecodable input or repeated failure): catalog marks the track FAILED. */
export const TrackProcessingFailed = defineEvent(
  'media-processing.track.failed.v1',
  z.object({ trackId: Id, uploadId: z.uuid(), attempt: z.number().int().min(1), errorMessage: z.string() }),
);

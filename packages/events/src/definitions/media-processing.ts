import { z } from 'zod';
import { defineEvent } from '../envelope.js';

const Id = z.number().int().positive();

/** A processing step reached (UploadStep names and progress, docs/api.md "Enums"). Catalog relays it to WS-2. */
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

/**
 * EBU R 128 loudness of the decoded original (media-processing's loudness.ts). `integratedLufs` and
 * `truePeakDbtp` are null for digital silence; `shortTerm` holds the 3-s short-term loudness at the
 * end of each second (null below −70 LUFS).
 */
export const LoudnessMeasurementSchema = z.object({
  integratedLufs: z.number().nullable(),
  rangeLu: z.number().nullable(),
  truePeakDbtp: z.number().nullable(),
  shortTerm: z.array(z.number().nullable()),
});
export type LoudnessMeasurementData = z.infer<typeof LoudnessMeasurementSchema>;

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
    /**
     * HLS master playlist over the AAC ladder (64/128/256 kbps media playlists `aac_<n>k.m3u8`, 6-s
     * segments `aac_<n>k_NNNN.ts`); before the ladder, a single 128 kbps media playlist (`seg_NNNN.ts`).
     * Everything lives under `hlsPrefix`.
     */
    hlsPlaylistKey: z.string(),
    hlsPrefix: z.string(),
    previewKey: z.string(),
    /** BBC audiowaveform JSON v2. */
    waveformJsonKey: z.string(),
    /** JSON array of the normalized peaks the clients draw (values 0..1). */
    waveformKey: z.string(),
    coverKey: z.string().nullable(),
    /** Null when the measurement failed; absent from events written before it existed. */
    loudness: LoudnessMeasurementSchema.nullable().optional(),
  }),
);

/** Processing gave up (undecodable input or repeated failure): catalog marks the track FAILED. */
export const TrackProcessingFailed = defineEvent(
  'media-processing.track.failed.v1',
  z.object({ trackId: Id, uploadId: z.uuid(), attempt: z.number().int().min(1), errorMessage: z.string() }),
);

/**
 * A processed upload's audio is the same as another track's (docs/fingerprints.md): the Chromaprint
 * fingerprints agree over at least 90 % of the shorter of the two. Published once per upload and
 * attempt, when the upload is fingerprinted (a retry of the processing publishes nothing new).
 * Seconds count from the start of each track's fingerprint (accurate to about a second).
 */
export const TrackDuplicateDetected = defineEvent(
  'media-processing.track.duplicate-detected.v1',
  z.object({
    /** The track just uploaded. */
    trackId: Id,
    uploadId: z.uuid(),
    attempt: z.number().int().min(1),
    /** The earlier track whose audio it repeats. */
    duplicateOfTrackId: Id,
    /** The matched stretch in the uploaded track. */
    trackStartSeconds: z.number().min(0),
    trackEndSeconds: z.number().min(0),
    /** The same stretch in the earlier track. */
    duplicateStartSeconds: z.number().min(0),
    duplicateEndSeconds: z.number().min(0),
    /** Matched length over the shorter track's length (0.9..1). */
    coverage: z.number().min(0).max(1),
    /** 1 − 2 × bit error rate over the stretch: 1 identical, 0 unrelated audio. */
    score: z.number().min(0).max(1),
  }),
);

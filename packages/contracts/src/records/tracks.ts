import { z } from 'zod';

import { ResourceTypeSchema, TrackAccessSchema, TrackStateSchema, UploadStepSchema } from '../enums.js';
import { CountSchema, DateSchema, DateTimeSchema, IdSchema } from './primitives.js';
import { UserSummarySchema } from './users.js';

export const TrackSummarySchema = z.object({
  id: IdSchema,
  title: z.string(),
  trackSlug: z.string(),
  coverUrl: z.string().nullable(),
  /** Media URLs follow the access level (R3) and are signed (R4). */
  trackUrl: z.string().nullable(),
  trackPreviewUrl: z.string().nullable(),
  hlsUrl: z.string().nullable(),
  waveformUrl: z.string().nullable(),
  /** Null until processed. */
  trackDurationSeconds: CountSchema.nullable(),
  artist: UserSummarySchema,
  playCount: CountSchema,
  likeCount: CountSchema,
  repostCount: CountSchema,
  commentCount: CountSchema,
  isLiked: z.boolean(),
  isReposted: z.boolean(),
  isPrivate: z.boolean(),
  /** Owner/admin only, else null. */
  secretToken: z.string().nullable(),
  access: TrackAccessSchema,
});
export type TrackSummary = z.infer<typeof TrackSummarySchema>;

/**
 * EBU R 128 loudness of the track's original (docs/sound.md). `gainDb` is what a player applies to
 * reach the service's target loudness, limited so the true peak after gain stays at or below
 * −1 dBTP; 0 for digital silence (integratedLufs null). The renditions themselves are not changed.
 */
export const TrackLoudnessSchema = z.object({
  integratedLufs: z.number().nullable(),
  rangeLu: z.number().nullable(),
  truePeakDbtp: z.number().nullable(),
  gainDb: z.number(),
});
export type TrackLoudness = z.infer<typeof TrackLoudnessSchema>;

/** Track (full). The optional fields appear only in the operations named on each. */
export const TrackSchema = z.object({
  id: IdSchema,
  title: z.string(),
  trackSlug: z.string(),
  artist: UserSummarySchema,
  description: z.string().max(5000).nullable(),
  genre: z.string(),
  tags: z.array(z.string()),
  releaseDate: DateSchema,
  uploadDate: DateTimeSchema,
  createdAt: DateTimeSchema,
  /** First time public and FINISHED (R2). */
  publishedAt: DateTimeSchema.nullable(),
  state: TrackStateSchema,
  isPrivate: z.boolean(),
  access: TrackAccessSchema,
  trackUrl: z.string().nullable(),
  trackPreviewUrl: z.string().nullable(),
  hlsUrl: z.string().nullable(),
  coverUrl: z.string().nullable(),
  waveformUrl: z.string().nullable(),
  trackDurationSeconds: CountSchema.nullable(),
  playCount: CountSchema,
  completedPlayCount: CountSchema,
  likeCount: CountSchema,
  repostCount: CountSchema,
  commentCount: CountSchema,
  isLiked: z.boolean(),
  isReposted: z.boolean(),
  secretToken: z.string().nullable(),
  /**
   * Null until FINISHED, and for a track whose loudness was not measured. Catalog always sends
   * it; a record rendered without catalog (social's fallback when catalog does not answer) leaves it out.
   */
  loudness: TrackLoudnessSchema.nullable().optional(),
  /** DSC-2 only; 1-based over the whole ranking. */
  trendingRank: z.number().int().positive().optional(),
  /** USR-22 and ENG-18 only. */
  repostedBy: UserSummarySchema.optional(),
  repostedAt: DateTimeSchema.optional(),
  /** USR-17 only. */
  lastPlayedAt: DateTimeSchema.optional(),
  /** TRK-1 only (= trackDurationSeconds). */
  durationSeconds: CountSchema.nullable().optional(),
});
export type Track = z.infer<typeof TrackSchema>;

/** Stations (DSC-5…7) only hold public FINISHED PLAYABLE tracks, hence the non-null media URLs. */
export const RadioTrackSchema = z.object({
  id: IdSchema,
  title: z.string(),
  artist: z.object({
    id: IdSchema,
    username: z.string(),
    displayName: z.string(),
    avatarUrl: z.string().nullable(),
  }),
  trackUrl: z.string(),
  coverUrl: z.string().nullable(),
  waveformUrl: z.string(),
  genre: z.string(),
  tags: z.array(z.string()),
  state: z.literal('FINISHED'),
  releaseDate: DateSchema,
  playCount: CountSchema,
  likeCount: CountSchema,
  repostCount: CountSchema,
  createdAt: DateTimeSchema,
  type: z.literal('TRACK'),
  track: TrackSummarySchema,
});
export type RadioTrack = z.infer<typeof RadioTrackSchema>;

/** WS-2 payload and TRK-3/TRK-4 answer. */
export const UploadStatusMessageSchema = z.object({
  uploadId: z.string(),
  /** Null before the track row exists. */
  trackId: IdSchema.nullable(),
  trackState: TrackStateSchema,
  status: TrackStateSchema,
  /** Never decreasing; null on failure. */
  progressPercentage: z.number().int().min(0).max(100).nullable(),
  progressPercent: z.number().int().min(0).max(100).nullable(),
  stepName: UploadStepSchema.nullable(),
  /** Set with FAILED. */
  errorMessage: z.string().nullable(),
  /** Set only on the FINISHED message. */
  trackResponse: TrackSchema.nullable(),
  updatedAt: DateTimeSchema,
});
export type UploadStatusMessage = z.infer<typeof UploadStatusMessageSchema>;

export const UploadAcceptedSchema = z.object({
  id: IdSchema,
  title: z.string(),
  uploadId: z.string(),
  trackState: TrackStateSchema,
});
export type UploadAccepted = z.infer<typeof UploadAcceptedSchema>;

export const SecretTokenSchema = z.object({
  secretToken: z.string(),
});
export type SecretToken = z.infer<typeof SecretTokenSchema>;

export const WaveformUrlSchema = z.object({
  trackId: IdSchema,
  /** Null until FINISHED. */
  waveformUrl: z.string().nullable(),
  duration: CountSchema.nullable(),
});
export type WaveformUrl = z.infer<typeof WaveformUrlSchema>;

export const PublishResultSchema = z.object({
  id: IdSchema,
  slug: z.string(),
  permalink: z.string(),
  publishedAt: DateTimeSchema,
});
export type PublishResult = z.infer<typeof PublishResultSchema>;

export const EmbedCodeSchema = z.object({
  embedCode: z.string(),
  embedUrl: z.string(),
});
export type EmbedCode = z.infer<typeof EmbedCodeSchema>;

export const ResolveResultSchema = z.object({
  type: ResourceTypeSchema,
  id: IdSchema,
  /** Same as type. */
  resourceType: ResourceTypeSchema,
  /** Same as id. */
  resourceId: IdSchema,
});
export type ResolveResult = z.infer<typeof ResolveResultSchema>;

/** One plain-words finding of the loudness report (codes and thresholds: docs/sound.md). */
export const SoundVerdictSchema = z.object({
  code: z.enum(['NOT_MEASURED', 'SILENT', 'TURNED_DOWN', 'TURNED_UP', 'AT_TARGET', 'PEAK_LIMITS_GAIN', 'TRUE_PEAK_OVER', 'HEAVILY_COMPRESSED', 'WIDE_RANGE']),
  message: z.string(),
});
export type SoundVerdict = z.infer<typeof SoundVerdictSchema>;

/** SND-1: the uploader's loudness report (the artist and admins only). */
export const LoudnessReportSchema = z.object({
  trackId: IdSchema,
  integratedLufs: z.number().nullable(),
  rangeLu: z.number().nullable(),
  truePeakDbtp: z.number().nullable(),
  gainDb: z.number(),
  /** The service's playback target (LOUDNESS_TARGET_LUFS). */
  targetLufs: z.number(),
  /** Short-term loudness (3-s windows) at the end of each second; null below −70 LUFS. */
  shortTermLufs: z.array(z.number().nullable()),
  verdicts: z.array(SoundVerdictSchema),
  /** The track this upload duplicates; null when none is known. */
  duplicateOf: IdSchema.nullable(),
});
export type LoudnessReport = z.infer<typeof LoudnessReportSchema>;

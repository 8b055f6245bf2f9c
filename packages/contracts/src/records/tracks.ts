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

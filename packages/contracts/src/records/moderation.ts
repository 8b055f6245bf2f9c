import { z } from 'zod';

import { ReportReasonSchema, ReportStatusSchema, ReportTargetTypeSchema } from '../enums.js';
import { CountSchema, DateTimeSchema, IdSchema } from './primitives.js';

/** The target fields are a snapshot taken when the report was filed (R14). */
/**
 * What duplicate detection found (docs/fingerprints.md): the matched track, the matched stretch in
 * seconds in the reported track and in the matched one, and the score (1 identical, 0 unrelated).
 */
export const ReportEvidenceSchema = z.object({
  matchedTrackId: IdSchema,
  matchedArtistId: IdSchema,
  trackStartSeconds: z.number().min(0),
  trackEndSeconds: z.number().min(0),
  matchedStartSeconds: z.number().min(0),
  matchedEndSeconds: z.number().min(0),
  /** Matched length over the shorter track's length. */
  coverage: z.number().min(0).max(1),
  score: z.number().min(0).max(1),
});
export type ReportEvidence = z.infer<typeof ReportEvidenceSchema>;

export const ReportSchema = z.object({
  id: IdSchema,
  /** Null for a report the platform filed itself (duplicate detection: reason COPYRIGHT, with `evidence`). */
  reporterId: IdSchema.nullable(),
  /** Null when `reporterId` is. */
  reporterUsername: z.string().nullable(),
  targetType: ReportTargetTypeSchema,
  /** Track id or comment id. */
  targetId: IdSchema,
  reason: ReportReasonSchema,
  description: z.string().max(1000).nullable(),
  status: ReportStatusSchema,
  createdAt: DateTimeSchema,
  updatedAt: DateTimeSchema,
  /** Owner of the reported track / author of the comment. */
  targetUserId: IdSchema,
  targetUsername: z.string(),
  targetDisplayName: z.string(),
  /** For COMMENT: the commented track. */
  targetTitle: z.string().nullable(),
  targetArtistName: z.string().nullable(),
  targetThumbnailUrl: z.string().nullable(),
  targetPlayCount: CountSchema.nullable(),
  targetCreatedAt: DateTimeSchema.nullable(),
  /** COMMENT only. */
  commentContent: z.string().nullable(),
  /** COMMENT only: the author's username. */
  commentAuthor: z.string().nullable(),
  /** Reports filed by duplicate detection only: what matched. */
  evidence: ReportEvidenceSchema.optional(),
  /**
   * Why the platform closed the report itself: `track removed` when the held-back track of a
   * duplicate-detection report was deleted (status RESOLVED). Absent otherwise, and once an admin
   * sets the status (MOD-7).
   */
  resolution: z.string().optional(),
});
export type Report = z.infer<typeof ReportSchema>;

export const ReportReceiptSchema = z.object({
  message: z.string(),
  reportId: IdSchema,
});
export type ReportReceipt = z.infer<typeof ReportReceiptSchema>;

export const ReportUpdateResultSchema = z.object({
  message: z.string(),
  report: ReportSchema,
});
export type ReportUpdateResult = z.infer<typeof ReportUpdateResultSchema>;

export const SuspensionResultSchema = z.object({
  message: z.string(),
  /** Null when the suspension was lifted. */
  suspendedUntil: DateTimeSchema.nullable(),
});
export type SuspensionResult = z.infer<typeof SuspensionResultSchema>;

export const PlatformMetricsSchema = z.object({
  totalUsers: CountSchema,
  totalTracks: CountSchema,
  totalPlays: CountSchema,
  /** Completed plays ÷ plays. */
  playThroughRate: z.number().min(0).max(1),
  totalStorageUsedBytes: CountSchema,
  totalStorageCapacityBytes: CountSchema,
  bannedUserCount: CountSchema,
  /** Same value as bannedUserCount. */
  totalBannedUsers: CountSchema,
  /** `"<artists>:<listeners>"`. */
  artistToListenerRatio: z.string().regex(/^\d+:\d+$/),
});
export type PlatformMetrics = z.infer<typeof PlatformMetricsSchema>;

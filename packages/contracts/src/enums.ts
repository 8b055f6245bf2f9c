import { z } from 'zod';

/**
 * Enums of the contract (docs/api.md "Enums"). ErrorCode is deliberately not here: @msp/errors owns the
 * code → status table so that there is a single place mapping one to the other.
 */

export const TrackStateSchema = z.enum(['UPLOADING', 'PROCESSING', 'FINISHED', 'FAILED']);
export type TrackState = z.infer<typeof TrackStateSchema>;

export const TrackAccessSchema = z.enum(['PLAYABLE', 'PREVIEW', 'BLOCKED']);
export type TrackAccess = z.infer<typeof TrackAccessSchema>;

export const TierSchema = z.enum(['FREE', 'PRO']);
export type Tier = z.infer<typeof TierSchema>;

export const RoleSchema = z.enum(['LISTENER', 'ARTIST', 'ADMIN']);
export type Role = z.infer<typeof RoleSchema>;

/** USR-6 may only switch between these two; ADMIN comes from configuration. */
export const SettableRoleSchema = RoleSchema.extract(['LISTENER', 'ARTIST']);
export type SettableRole = z.infer<typeof SettableRoleSchema>;

export const DeviceTypeSchema = z.enum(['DESKTOP', 'MOBILE', 'TABLET', 'WEB']);
export type DeviceType = z.infer<typeof DeviceTypeSchema>;

export const PlaylistTypeSchema = z.enum(['PLAYLIST', 'ALBUM', 'SINGLE', 'EP']);
export type PlaylistType = z.infer<typeof PlaylistTypeSchema>;

export const ReportStatusSchema = z.enum(['OPEN', 'IN_REVIEW', 'RESOLVED', 'DISMISSED']);
export type ReportStatus = z.infer<typeof ReportStatusSchema>;

export const ReportTargetTypeSchema = z.enum(['TRACK', 'COMMENT']);
export type ReportTargetType = z.infer<typeof ReportTargetTypeSchema>;

export const ReportReasonSchema = z.enum(['SPAM', 'HATE_SPEECH', 'HARASSMENT', 'COPYRIGHT', 'VIOLENCE', 'ADULT_CONTENT', 'INAPPROPRIATE', 'OTHER']);
export type ReportReason = z.infer<typeof ReportReasonSchema>;

/**
 * DUPLICATE_UPLOAD: your new upload repeats one of your tracks. UPLOAD_HELD_BACK: your new upload
 * repeats another artist's track and is held back pending review. TRACK_COPY_DETECTED: another
 * artist uploaded a copy of your track (docs/fingerprints.md). EXPORT_READY: the export of your data
 * (ACC-1) can be downloaded (actor and resource: yourself; docs/account-control.md). WEBHOOK_DISABLED:
 * a webhook of one of your apps failed for 3 days and was disabled (actor and resource: yourself,
 * `targetTitle` its URL; at most one a day; docs/developer-platform.md "Webhooks").
 */
export const NotificationTypeSchema = z.enum([
  'FOLLOW',
  'LIKE',
  'REPOST',
  'COMMENT',
  'REPLY',
  'DM',
  'DUPLICATE_UPLOAD',
  'UPLOAD_HELD_BACK',
  'TRACK_COPY_DETECTED',
  'EXPORT_READY',
  'WEBHOOK_DISABLED',
]);
export type NotificationType = z.infer<typeof NotificationTypeSchema>;

export const ResourceTypeSchema = z.enum(['TRACK', 'PLAYLIST', 'USER']);
export type ResourceType = z.infer<typeof ResourceTypeSchema>;

/** Messages (MSG-4) and repost history can only point at tracks and playlists. */
export const MessageResourceTypeSchema = ResourceTypeSchema.extract(['TRACK', 'PLAYLIST']);
export type MessageResourceType = z.infer<typeof MessageResourceTypeSchema>;

export const FeedItemTypeSchema = z.enum(['TRACK_POSTED', 'TRACK_REPOSTED', 'PLAYLIST_POSTED', 'PLAYLIST_REPOSTED', 'TRACK_LIKED', 'PLAYLIST_LIKED']);
export type FeedItemType = z.infer<typeof FeedItemTypeSchema>;

/** Every accepted DSC-3 `type` value mapped to its canonical SearchType. */
const SEARCH_TYPE_INPUTS = {
  ALL: 'ALL',
  TRACK: 'TRACK',
  USER: 'USER',
  PLAYLIST: 'PLAYLIST',
  TRACKS: 'TRACK',
  USERS: 'USER',
  PLAYLISTS: 'PLAYLIST',
} as const;

/** Canonical SearchType values only (what the server reasons about). */
export const SearchTypeValueSchema = z.enum(['ALL', 'TRACK', 'USER', 'PLAYLIST']);

/**
 * DSC-3 `type`: accepts the canonical values and the plural aliases, and always
 * yields the canonical value so handlers never see an alias.
 */
export const SearchTypeSchema = z.enum(['ALL', 'TRACK', 'USER', 'PLAYLIST', 'TRACKS', 'USERS', 'PLAYLISTS']).transform((value) => SEARCH_TYPE_INPUTS[value]);
export type SearchType = z.output<typeof SearchTypeSchema>;

export const SubscriptionStatusSchema = z.enum(['active', 'trialing', 'past_due', 'cancelled']);
export type SubscriptionStatus = z.infer<typeof SubscriptionStatusSchema>;

/** Statuses that make a user PRO (R12, R17). */
export const PRO_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['active', 'trialing', 'past_due'];

export const SubscriptionPlanSchema = z.enum(['free', 'pro']);
export type SubscriptionPlan = z.infer<typeof SubscriptionPlanSchema>;

export const AuthProviderSchema = z.enum(['LOCAL', 'GOOGLE']);
export type AuthProvider = z.infer<typeof AuthProviderSchema>;

/**
 * The successful path of an upload (UploadStep), in order. The two
 * cover steps are alternatives sharing progress 90; the failure step is kept
 * apart because its progress is null (see UPLOAD_FAILED_STEP).
 */
export const UPLOAD_STEPS = [
  { stepName: 'Waiting for server...', progress: 0 },
  { stepName: 'Upload received', progress: 5 },
  { stepName: 'Uploading audio file', progress: 10 },
  { stepName: 'Processing started', progress: 20 },
  { stepName: 'Extracting audio duration', progress: 25 },
  { stepName: 'Duration extracted', progress: 30 },
  { stepName: 'Transcoding audio', progress: 40 },
  { stepName: 'Generating preview', progress: 60 },
  { stepName: 'Generating waveform', progress: 70 },
  { stepName: 'Waveform data uploaded', progress: 80 },
  { stepName: 'Uploading cover image', progress: 90 },
  { stepName: 'No cover provided', progress: 90 },
  { stepName: 'Done', progress: 100 },
] as const satisfies readonly { stepName: string; progress: number }[];

/** Sent with state FAILED and progress null. */
export const UPLOAD_FAILED_STEP = 'Processing failed';

export const UploadStepSchema = z.enum([...UPLOAD_STEPS.map((step) => step.stepName), UPLOAD_FAILED_STEP]);
export type UploadStep = z.infer<typeof UploadStepSchema>;

/** TRK-20 answer; a track's own genre stays free text. */
export const CURATED_GENRES = [
  'Alternative',
  'Ambient',
  'Classical',
  'Country',
  'Dance & EDM',
  'Deep House',
  'Drum & Bass',
  'Dubstep',
  'Electronic',
  'Folk',
  'Hip-hop & Rap',
  'House',
  'Indie',
  'Jazz',
  'Latin',
  'Lo-fi',
  'Metal',
  'Piano',
  'Pop',
  'R&B & Soul',
  'Reggae',
  'Reggaeton',
  'Rock',
  'Soundtrack',
  'Techno',
  'Trance',
  'Trap',
  'World',
] as const satisfies readonly string[];
export type CuratedGenre = (typeof CURATED_GENRES)[number];

import { z } from 'zod';

import { FeedItemTypeSchema, MessageResourceTypeSchema, ResourceTypeSchema } from '../enums.js';
import { PlaylistSchema } from './playlists.js';
import { CountSchema, DateTimeSchema, IdSchema } from './primitives.js';
import { TrackSchema } from './tracks.js';
import { UserSummarySchema } from './users.js';

export const CommentSchema = z.object({
  id: IdSchema,
  trackId: IdSchema,
  /** The author. */
  user: UserSummarySchema,
  body: z.string().min(1).max(1000),
  /** Position in the track; 0 when not given. */
  timestampSeconds: CountSchema,
  /** Null for a top-level comment. */
  replyToCommentId: IdSchema.nullable(),
  replyCount: CountSchema,
  createdAt: DateTimeSchema,
});
export type Comment = z.infer<typeof CommentSchema>;

/** Only one reply level exists (R10), so a reply always has a parent and never replies of its own. */
export const ReplySchema = CommentSchema.extend({
  replyToCommentId: IdSchema,
  replyCount: z.literal(0),
});
export type Reply = z.infer<typeof ReplySchema>;

export const ResourceRefSchema = z.object({
  type: ResourceTypeSchema,
  id: IdSchema,
  /** Set when type = TRACK. */
  track: TrackSchema.nullable(),
  /** Set when type = PLAYLIST (list form). */
  playlist: PlaylistSchema.nullable(),
  /** Set when type = USER. */
  user: UserSummarySchema.nullable(),
  repostedBy: UserSummarySchema.nullable(),
  repostedAt: DateTimeSchema.nullable(),
});
export type ResourceRef = z.infer<typeof ResourceRefSchema>;

export const FeedItemSchema = z.object({
  id: IdSchema,
  type: FeedItemTypeSchema,
  resource: ResourceRefSchema,
  /** The followed user who caused the item. */
  actor: UserSummarySchema,
  /** Set for *_LIKED. */
  likedBy: UserSummarySchema.nullable(),
  /** Set for *_REPOSTED. */
  repostedBy: UserSummarySchema.nullable(),
  createdAt: DateTimeSchema,
});
export type FeedItem = z.infer<typeof FeedItemSchema>;

export const LikeResponseSchema = z.object({
  message: z.string(),
  /** State after the call. */
  isLiked: z.boolean(),
  likeCount: CountSchema,
});
export type LikeResponse = z.infer<typeof LikeResponseSchema>;

export const RepostResponseSchema = z.object({
  message: z.string(),
  isReposted: z.boolean(),
  repostCount: CountSchema,
});
export type RepostResponse = z.infer<typeof RepostResponseSchema>;

export const RepostHistoryEntrySchema = z.object({
  type: MessageResourceTypeSchema,
  id: IdSchema,
  title: z.string(),
  slug: z.string(),
  coverUrl: z.string().nullable(),
  repostedAt: DateTimeSchema,
});
export type RepostHistoryEntry = z.infer<typeof RepostHistoryEntrySchema>;

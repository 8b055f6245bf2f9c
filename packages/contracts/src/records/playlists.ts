import { z } from 'zod';

import { PlaylistTypeSchema } from '../enums.js';
import { pageSchema } from './page.js';
import { CountSchema, DateTimeSchema, IdSchema } from './primitives.js';
import { TrackSummarySchema } from './tracks.js';
import { UserSummarySchema } from './users.js';

export const PlaylistSchema = z.object({
  id: IdSchema,
  title: z.string().min(1).max(100),
  type: PlaylistTypeSchema,
  description: z.string().max(1000).nullable(),
  isPrivate: z.boolean(),
  coverArtUrl: z.string().nullable(),
  playlistSlug: z.string(),
  /** The playlist genre first, then the distinct genres of its tracks. */
  genres: z.array(z.string()),
  /** The genre set by the owner. */
  genre: z.string().nullable(),
  tags: z.array(z.string()),
  /** Over the tracks included for the caller (R6). */
  totalDurationSeconds: CountSchema,
  trackCount: CountSchema,
  secretToken: z.string().nullable(),
  owner: UserSummarySchema,
  isLiked: z.boolean(),
  isReposted: z.boolean(),
  likeCount: CountSchema,
  repostCount: CountSchema,
  createdAt: DateTimeSchema,
  updatedAt: DateTimeSchema,
  /** In position order: every included track for a single playlist, the first 5 in lists. */
  trackSummaryDto: z.array(TrackSummarySchema),
  /** Same array as trackSummaryDto. */
  tracks: z.array(TrackSummarySchema),
  firstTrackWaveformUrl: z.string().nullable(),
  /** The `page,size` slice of the tracks in single-playlist responses; null in lists. */
  paginatedTrackResponse: pageSchema(TrackSummarySchema).nullable(),
});
export type Playlist = z.infer<typeof PlaylistSchema>;

export const PlaylistSecretLinkSchema = z.object({
  secretToken: z.string(),
  secretUrl: z.string(),
  /** Tokens do not expire. */
  expiresAt: z.null(),
});
export type PlaylistSecretLink = z.infer<typeof PlaylistSecretLinkSchema>;

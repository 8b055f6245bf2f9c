import { z } from 'zod';
import { RoleSchema } from './enums.js';
import { PlaylistSchema } from './records/playlists.js';
import { IdSchema } from './records/primitives.js';
import { IdParamSchema } from './records/request.js';
import { TrackSchema } from './records/tracks.js';
import type { ServiceName } from './services.js';

export const ProbeRequestSchema = z.object({ bucket: z.string().min(3).max(63), key: z.string().min(1).max(1024) });
export type ProbeRequest = z.infer<typeof ProbeRequestSchema>;

export const ProbeResultSchema = z.object({
  /** ffprobe could open the input and read its container. */
  readable: z.boolean(),
  formatName: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  audioStreams: z.array(z.object({ codecName: z.string(), packets: z.number().int() })),
  /** Video streams that are not an attached cover picture. */
  videoStreams: z.number().int(),
});
export type ProbeResult = z.infer<typeof ProbeResultSchema>;

export const InternalSubscriptionSchema = z.object({
  userId: z.number().int().positive(),
  status: z.enum(['active', 'trialing', 'past_due', 'cancelled']),
  currentPeriodEnd: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
export type InternalSubscription = z.infer<typeof InternalSubscriptionSchema>;

/** Ids are PostgreSQL integers: one past 2^31 − 1 is a 400, never a database error. */
const Id = IdSchema;

export const RelationshipsRequestSchema = z.object({
  viewerId: Id,
  userIds: z.array(Id).max(500),
});
export const RelationshipItemSchema = z.object({
  userId: Id,
  /** viewer follows user */
  isFollowing: z.boolean(),
  /** user follows viewer */
  isFollowed: z.boolean(),
  /** viewer has blocked user */
  isBlocked: z.boolean(),
  /** user has blocked viewer (R7: the user's content is then invisible to the viewer) */
  hasBlockedViewer: z.boolean(),
});
export const RelationshipsResponseSchema = z.object({ items: z.array(RelationshipItemSchema) });
export type RelationshipsRequest = z.infer<typeof RelationshipsRequestSchema>;
export type RelationshipsResponse = z.infer<typeof RelationshipsResponseSchema>;

export const InternalTracksRequestSchema = z.object({
  /** null: an anonymous viewer. */
  viewerId: Id.nullable(),
  viewerRole: RoleSchema.default('LISTENER'),
  trackIds: z.array(Id).max(100),
});
export const InternalTracksResponseSchema = z.object({
  tracks: z.array(TrackSchema),
});
export type InternalTracksRequest = z.infer<typeof InternalTracksRequestSchema>;
export type InternalTracksResponse = z.infer<typeof InternalTracksResponseSchema>;

export const InternalPlaylistsRequestSchema = z.object({
  /** null: an anonymous viewer. */
  viewerId: Id.nullable(),
  viewerRole: RoleSchema.default('LISTENER'),
  playlistIds: z.array(Id).max(100),
});
export const InternalPlaylistsResponseSchema = z.object({
  playlists: z.array(PlaylistSchema),
});
export type InternalPlaylistsRequest = z.infer<typeof InternalPlaylistsRequestSchema>;
export type InternalPlaylistsResponse = z.infer<typeof InternalPlaylistsResponseSchema>;

/**
 * One service-to-service operation, declared once: who answers it, its method and path, and what goes
 * in and out. The owner registers its route from this (`internalRoute` in @msp/http) and callers go
 * through `InternalClient.send`, which builds the path and can check the answer with `response`, so no
 * service keeps its own copy of another's schema. These routes are not in ROUTES: the gateway never
 * exposes them, services call each other at their *_URL and hide them from OpenAPI.
 */
export interface InternalOperation<
  Params extends z.ZodType | undefined = z.ZodType | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Response extends z.ZodType = z.ZodType,
> {
  owner: ServiceName;
  method: 'GET' | 'POST';
  /** Fastify form (`:userId`). */
  path: string;
  params: Params;
  body: Body;
  response: Response;
  /**
   * The owner sends JSON text built by PostgreSQL as is (no zod pass on a hot path): its route
   * declares no response schema, and its tests check the text against `response`.
   */
  prebuiltAnswer?: boolean;
}

const internal = <P extends z.ZodType | undefined, B extends z.ZodType | undefined, R extends z.ZodType>(operation: InternalOperation<P, B, R>) => operation;

export const INTERNAL_OPERATIONS = {
  /** social: how `viewerId` relates to each of `userIds` (profiles, user lists). */
  relationships: internal({
    owner: 'social',
    method: 'POST',
    path: '/internal/relationships',
    params: undefined,
    body: RelationshipsRequestSchema,
    response: RelationshipsResponseSchema,
    prebuiltAnswer: true,
  }),
  /** billing: a user's subscription; 404 when they never subscribed. */
  subscription: internal({
    owner: 'billing',
    method: 'GET',
    path: '/internal/subscriptions/:userId',
    params: IdParamSchema('userId'),
    body: undefined,
    response: InternalSubscriptionSchema,
  }),
  /**
   * catalog: Track (full) records of the given ids as TRK-6 renders them for the viewer (signed
   * media URLs, catalog's counts); ids the viewer may not see (R2, R7) are left out.
   */
  tracks: internal({
    owner: 'catalog',
    method: 'POST',
    path: '/internal/tracks',
    params: undefined,
    body: InternalTracksRequestSchema,
    response: InternalTracksResponseSchema,
  }),
  /**
   * catalog: Playlist records (list form, as PLS-1 renders them) of the given ids for the viewer;
   * ids the viewer may not see (R6, R7, R14) are left out.
   */
  playlists: internal({
    owner: 'catalog',
    method: 'POST',
    path: '/internal/playlists',
    params: undefined,
    body: InternalPlaylistsRequestSchema,
    response: InternalPlaylistsResponseSchema,
  }),
  /**
   * media-processing: ffprobe of a stored original (R11), asked by catalog before an upload is
   * accepted; the only service with ffmpeg.
   */
  mediaProbe: internal({
    owner: 'media-processing',
    method: 'POST',
    path: '/internal/media/probe',
    params: undefined,
    body: ProbeRequestSchema,
    response: ProbeResultSchema,
  }),
} as const;

/** The paths of INTERNAL_OPERATIONS, by name (cited by docs and tests). */
export const INTERNAL_ROUTES = Object.fromEntries(Object.entries(INTERNAL_OPERATIONS).map(([name, operation]) => [name, operation.path])) as {
  readonly [K in keyof typeof INTERNAL_OPERATIONS]: (typeof INTERNAL_OPERATIONS)[K]['path'];
};

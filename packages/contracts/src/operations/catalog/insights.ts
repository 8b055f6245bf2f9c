import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { IdParamSchema } from '../../records/request.js';

const TrackParams = IdParamSchema('trackId');
const DateLike = z.string().max(40);

const RangeQuerySchema = z.object({ from: DateLike.optional(), to: DateLike.optional() });
const TrackQuerySchema = RangeQuerySchema.extend({ granularity: z.enum(['day', 'hour']).optional() });

const Count = z.number().int().min(0);
const SeriesRowSchema = z.object({ period: z.string(), plays: Count, completions: Count, likes: Count, reposts: Count, comments: Count, downloads: Count });
const TotalsSchema = SeriesRowSchema.omit({ period: true });

/** INS-1 answer: one track's insights. */
export const TrackInsightsSchema = z.object({
  trackId: z.number().int(),
  from: z.string(),
  to: z.string(),
  granularity: z.enum(['day', 'hour']),
  totals: TotalsSchema,
  series: z.array(SeriesRowSchema),
  sources: z.array(z.object({ source: z.string(), plays: Count })),
  retention: z.object({ plays: Count, points: z.array(z.object({ percent: z.number().int(), share: z.number().min(0).max(1) })) }),
});

/** INS-2 answer: the caller's insights as an artist. */
export const ArtistInsightsSchema = z.object({
  artistId: z.number().int(),
  from: z.string(),
  to: z.string(),
  totals: TotalsSchema.extend({ followersGained: Count, followersLost: Count }),
  days: z.array(SeriesRowSchema.extend({ followersGained: Count, followersLost: Count })),
  topTracks: z.array(z.object({ trackId: z.number().int(), title: z.string(), plays: Count })),
  topListeners: z.array(z.object({ username: z.string(), displayName: z.string(), plays: Count })),
});

const ProgressEventSchema = z.object({
  position: z.number().min(0).max(86_400),
  duration: z.number().positive().max(86_400).optional(),
  playId: z
    .string()
    .regex(/^\d{1,19}$/)
    .optional(),
});
/** One event, or a batch (beacons on page hide): `{events: [...]}`, at most 100. */
const ProgressBodySchema = z.union([z.object({ events: z.array(ProgressEventSchema).min(1).max(100) }), ProgressEventSchema]);

const VoidBodySchema = z.object({
  listenerId: z.number().int().positive().optional(),
  clientHash: z.string().min(1).max(64).optional(),
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  reason: z.string().trim().min(1).max(500),
});

/** The operations of catalog's insights module (contract row, input and output; services/catalog/src/modules/insights; docs/insights.md). */
export const CATALOG_INSIGHTS = {
  'INS-1': {
    // INS: artist insights over the play log (services/catalog/src/modules/insights, docs/insights.md)
    method: 'GET',
    path: '/insights/tracks/{trackId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: "A track's plays, completions, engagement, sources and retention over time (its artist or admins)",
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params: TrackParams,
    querystring: TrackQuerySchema,
    response: { 200: TrackInsightsSchema },
  },
  'INS-2': {
    method: 'GET',
    path: '/insights/me',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: "The caller's daily totals, top tracks, top listeners and follower changes",
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: RangeQuerySchema,
    response: { 200: ArtistInsightsSchema },
  },
  'INS-3': {
    method: 'POST',
    path: '/admin/plays/void',
    auth: 'admin',
    owner: 'catalog',
    bodyKind: 'json',
    summary: "Void a listener's or client's plays in a time range (admin only)",
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'],

    body: VoidBodySchema,
    response: { 200: z.object({ voidId: z.string(), voided: Count, uncounted: Count }) },
  },
  'INS-4': {
    method: 'POST',
    path: '/tracks/{trackId}/progress',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'json',
    summary: 'Listening progress of a play (one event or a batch)',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params: TrackParams,
    body: ProgressBodySchema,
    response: { 200: z.object({ accepted: Count, ignored: Count }) },
  },
} satisfies Operations;

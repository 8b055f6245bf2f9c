import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { IdParamSchema } from '@msp/contracts';
import { callerFrom, clientAddress, operation, requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { listenerKey } from './play-counting.js';
import type { InsightsService } from './insights.service.js';

const TrackParams = IdParamSchema('trackId');
const DateLike = z.string().max(40);

const RangeQuerySchema = z.object({ from: DateLike.optional(), to: DateLike.optional() });
const TrackQuerySchema = RangeQuerySchema.extend({ granularity: z.enum(['day', 'hour']).optional() });

const Count = z.number().int().min(0);
const SeriesRowSchema = z.object({ period: z.string(), plays: Count, completions: Count, likes: Count, reposts: Count, comments: Count, downloads: Count });
const TotalsSchema = SeriesRowSchema.omit({ period: true });

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

const wantsCsv = (request: FastifyRequest) => /\btext\/csv\b/i.test(String(request.headers.accept ?? ''));

function sendCsv(reply: FastifyReply, filename: string, lines: Iterable<string>) {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(Readable.from(lines));
}

/** INS-1..INS-4 (docs/insights.md), registered from their contract (method, path, auth: packages/contracts). */
export const insightsModule: FastifyPluginAsyncZod<{ insights: InsightsService }> = async (app, { insights }) => {
  app.route({
    ...operation('INS-1'),
    schema: { params: TrackParams, querystring: TrackQuerySchema, response: { 200: TrackInsightsSchema } },
    handler: async (request, reply) => {
      const result = await insights.track(request.params.trackId, requireCaller(request), request.query);
      if (wantsCsv(request)) return sendCsv(reply, `track-${result.trackId}-insights.csv`, insights.trackCsv(result));
      return result;
    },
  });

  app.route({
    ...operation('INS-2'),
    schema: { querystring: RangeQuerySchema, response: { 200: ArtistInsightsSchema } },
    handler: async (request, reply) => {
      const result = await insights.artist(requireCaller(request), request.query);
      if (wantsCsv(request)) return sendCsv(reply, `artist-${result.artistId}-insights.csv`, insights.artistCsv(result));
      return result;
    },
  });

  app.route({
    ...operation('INS-3'),
    schema: { body: VoidBodySchema, response: { 200: z.object({ voidId: z.string(), voided: Count, uncounted: Count }) } },
    handler: async (request) => insights.voidPlays(requireAdmin(request), request.body),
  });

  app.route({
    ...operation('INS-4'),
    schema: { params: TrackParams, body: ProgressBodySchema, response: { 200: z.object({ accepted: Count, ignored: Count }) } },
    handler: async (request) => {
      const caller = callerFrom(request);
      const who = listenerKey(caller?.userId ?? null, clientAddress(request), String(request.headers['user-agent'] ?? ''));
      const events = 'events' in request.body ? request.body.events : [request.body];
      return insights.progress(request.params.trackId, who, events);
    },
  });
};

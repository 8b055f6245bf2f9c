import { z } from 'zod';
import {
  coercedNumber,
  IdTextSchema,
  MAX_PAGE_SIZE,
  pageSchema,
  PageQuerySchema,
  RadioTrackSchema,
  ResolveResultSchema,
  ResourceRefSchema,
  SearchTypeSchema,
  TrackSchema,
} from '@msp/contracts';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { DiscoveryService } from './discovery.service.js';

// PostgreSQL text cannot hold NUL: refuse control characters up front (400, not a 500 from the driver).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const GenreSchema = z.string().trim().min(1).max(100).regex(NO_CONTROL, 'Must not contain control characters');

const TrendingQuerySchema = PageQuerySchema.extend({
  genre: GenreSchema.optional(),
  /** R18: `limit` stands for `size` when given. */
  limit: coercedNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).optional(),
});

const SearchQuerySchema = PageQuerySchema.extend({
  q: z.string().min(1).max(100),
  type: z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), SearchTypeSchema).default('ALL'),
  genre: GenreSchema.optional(),
});

const ResolveQuerySchema = z.object({ url: z.string().min(1).max(2048) });
const GenreStationQuerySchema = PageQuerySchema.extend({ genre: GenreSchema });
const ArtistStationQuerySchema = PageQuerySchema.extend({ artistId: IdTextSchema });

/** DSC-2 … DSC-7 (docs/api.md "DSC: Discovery"; R18). */
export const discoveryModule: FastifyPluginAsyncZod<{ discovery: DiscoveryService }> = async (app, { discovery }) => {
  app.route({
    ...operation('DSC-2'),
    schema: { querystring: TrendingQuerySchema, response: { 200: pageSchema(TrackSchema) } },
    handler: async (request) => {
      const { genre, page, size, limit } = request.query;
      return discovery.trending(callerFrom(request), { genre, page, size: limit ?? size });
    },
  });

  app.route({
    ...operation('DSC-3'),
    schema: { querystring: SearchQuerySchema, response: { 200: pageSchema(ResourceRefSchema) } },
    handler: async (request) => discovery.search(callerFrom(request), request.query),
  });

  app.route({
    ...operation('DSC-4'),
    schema: { querystring: ResolveQuerySchema, response: { 200: ResolveResultSchema } },
    handler: async (request) => discovery.resolve(callerFrom(request), request.query.url),
  });

  app.route({
    ...operation('DSC-5'),
    schema: { querystring: GenreStationQuerySchema, response: { 200: pageSchema(RadioTrackSchema) } },
    handler: async (request) => discovery.genreStation(callerFrom(request), request.query.genre, request.query),
  });

  app.route({
    ...operation('DSC-6'),
    schema: { querystring: ArtistStationQuerySchema, response: { 200: pageSchema(RadioTrackSchema) } },
    handler: async (request) => discovery.artistStation(callerFrom(request), request.query.artistId, request.query),
  });

  app.route({
    ...operation('DSC-7'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(RadioTrackSchema) } },
    handler: async (request) => discovery.likesStation(requireCaller(request), request.query),
  });
};

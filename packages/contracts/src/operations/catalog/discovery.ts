import { z } from 'zod';
import { SearchTypeSchema } from '../../enums.js';
import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { coercedNumber } from '../../records/primitives.js';
import { IdTextSchema, MAX_PAGE_SIZE, PageQuerySchema } from '../../records/request.js';
import { ResourceRefSchema } from '../../records/social.js';
import { RadioTrackSchema, ResolveResultSchema, TrackSchema } from '../../records/tracks.js';

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

/** The operations of catalog's discovery module (contract row, input and output; services/catalog/src/modules/discovery; docs/api.md "DSC: Discovery"; R18). */
export const CATALOG_DISCOVERY = {
  'DSC-2': {
    method: 'GET',
    path: '/explore/trending',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Popular tracks',
    errors: ['VALIDATION_FAILED'],
    scope: 'read',

    querystring: TrendingQuerySchema,
    response: { 200: pageSchema(TrackSchema) },
  },
  'DSC-3': {
    method: 'GET',
    path: '/search',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Global search',
    errors: ['VALIDATION_FAILED'],
    scope: 'read',

    querystring: SearchQuerySchema,
    response: { 200: pageSchema(ResourceRefSchema) },
  },
  'DSC-4': {
    method: 'GET',
    path: '/resolve',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Resolve a public permalink URL to an internal entity id',
    errors: ['VALIDATION_FAILED', 'RESOURCE_NOT_FOUND'],
    scope: 'read',

    querystring: ResolveQuerySchema,
    response: { 200: ResolveResultSchema },
  },
  'DSC-5': {
    method: 'GET',
    path: '/stations/genre',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Generate a radio station based on a genre',
    errors: ['VALIDATION_FAILED'],
    scope: 'read',

    querystring: GenreStationQuerySchema,
    response: { 200: pageSchema(RadioTrackSchema) },
  },
  'DSC-6': {
    method: 'GET',
    path: '/stations/artist',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Radio station by artist similarities',
    errors: ['VALIDATION_FAILED', 'USER_NOT_FOUND'],
    scope: 'read',

    querystring: ArtistStationQuerySchema,
    response: { 200: pageSchema(RadioTrackSchema) },
  },
  'DSC-7': {
    method: 'GET',
    path: '/stations/likes',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: "Radio station from the user's likes",
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: { 200: pageSchema(RadioTrackSchema) },
  },
} satisfies Operations;

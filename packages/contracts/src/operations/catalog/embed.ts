import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';

const PlayerQuerySchema = z.object({ url: z.string().min(1).max(2000), token: z.string().min(1).max(200).optional() });
const OembedQuerySchema = z.object({
  url: z.string().min(1).max(2000),
  format: z.enum(['json']).optional(),
  maxwidth: z.coerce.number().int().min(1).max(5000).optional(),
  maxheight: z.coerce.number().int().min(1).max(5000).optional(),
});

const OembedSchema = z.object({
  version: z.literal('1.0'),
  type: z.literal('rich'),
  provider_name: z.string(),
  provider_url: z.string(),
  title: z.string(),
  author_name: z.string(),
  author_url: z.string(),
  html: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  thumbnail_url: z.string().optional(),
});

/** The operations of catalog's embed module (services/catalog/src/modules/embed): contract row, input and output. */
export const CATALOG_EMBED = {
  'EMBED-1': {
    method: 'GET',
    path: '/embed/player',
    auth: 'none',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Embeddable track player page (TRK-16)',
    errors: ['VALIDATION_FAILED', 'TRACK_NOT_FOUND', 'PLAYLIST_NOT_FOUND'],

    querystring: PlayerQuerySchema,
  },
  'EMBED-2': {
    method: 'GET',
    path: '/oembed',
    auth: 'none',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'oEmbed for track permalinks',
    errors: ['VALIDATION_FAILED', 'TRACK_NOT_FOUND', 'PLAYLIST_NOT_FOUND'],

    querystring: OembedQuerySchema,
    response: { 200: OembedSchema },
  },
} satisfies Operations;

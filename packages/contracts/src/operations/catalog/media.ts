import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { IdTextSchema } from '../../records/request.js';

/** The files of a track MEDIA-1 serves: progressive and preview audio, the HLS master playlist and the ladder's media playlists (docs/sound.md). */
export const MEDIA_RENDITIONS = ['full.m4a', 'preview.m4a', 'index.m3u8', 'aac_64k.m3u8', 'aac_128k.m3u8', 'aac_256k.m3u8'] as const;
export type MediaRendition = (typeof MEDIA_RENDITIONS)[number];

/** A segment file name (MEDIA-2): the ladder's `aac_<n>k_NNNN.ts`, or `seg_NNNN.ts` of a single-playlist track. */
export const MEDIA_SEGMENT_NAME = /^(?:seg|aac_(?:64|128|256)k)_\d{1,6}\.ts$/;

/** R4 signature: expiry (epoch seconds), grant, and the MAC. */
const SignedQuerySchema = z.object({
  e: IdTextSchema,
  g: z.enum(['o', 'v', 't']),
  s: z.string().min(1).max(100),
});

const RenditionParams = z.object({ trackId: IdTextSchema, rendition: z.enum(MEDIA_RENDITIONS) });
const SegmentParams = z.object({ trackId: IdTextSchema, segment: z.string().regex(MEDIA_SEGMENT_NAME) });
const AssetParams = z.object({
  assetId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  file: z.enum(['waveform.json', 'audiowaveform.json', 'cover.jpg']),
});

/** The operations of catalog's media module (services/catalog/src/modules/media): contract row, input and output. */
export const CATALOG_MEDIA = {
  'MEDIA-1': {
    // Media and embeds: not API operations but the public byte paths behind the URLs the
    // API hands out (R4 signed audio, unsigned waveform/cover files) and the embed player of TRK-16.
    method: 'GET',
    path: '/media/tracks/{trackId}/{rendition}',
    auth: 'none',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Signed track audio: progressive, preview, HLS master or media playlist (R4)',
    // Media files and embeds (catalog): a media URL with a bad or expired signature is 403.
    errors: ['VALIDATION_FAILED', 'FORBIDDEN', 'TRACK_NOT_PLAYABLE', 'TRACK_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],

    params: RenditionParams,
    querystring: SignedQuerySchema,
  },
  'MEDIA-2': {
    method: 'GET',
    path: '/media/tracks/{trackId}/segments/{segment}',
    auth: 'none',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Signed HLS segment (R4)',
    errors: ['VALIDATION_FAILED', 'FORBIDDEN', 'TRACK_NOT_PLAYABLE', 'TRACK_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],

    params: SegmentParams,
    querystring: SignedQuerySchema,
  },
  'MEDIA-3': {
    method: 'GET',
    path: '/media/assets/{assetId}/{file}',
    auth: 'none',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Waveform and cover files (unsigned, unguessable)',
    errors: ['TRACK_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],

    params: AssetParams,
  },
} satisfies Operations;

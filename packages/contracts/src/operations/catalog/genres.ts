import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';

/** The operations of catalog's genres module (services/catalog/src/modules/genres): contract row, input and output. */
export const CATALOG_GENRES = {
  /** The curated list (CURATED_GENRES), as a bare array. */
  'TRK-20': {
    method: 'GET',
    path: '/genres',
    auth: 'none',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Genres',
    errors: [],
    response: { 200: z.array(z.string()) },
  },
} satisfies Operations;

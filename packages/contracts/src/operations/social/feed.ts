import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { PageQuerySchema } from '../../records/request.js';
import { FeedItemSchema } from '../../records/social.js';

/** The operations of social's feed module (services/social/src/modules/feed): contract row, input and output. */
export const SOCIAL_FEED = {
  'DSC-1': {
    method: 'GET',
    path: '/feed',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Followed users feed',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: { 200: pageSchema(FeedItemSchema) },
  },
} satisfies Operations;

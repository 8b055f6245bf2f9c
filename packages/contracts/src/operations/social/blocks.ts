import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { MessageResponseSchema } from '../../records/common.js';
import { pageSchema } from '../../records/page.js';
import { PageQuerySchema, UserRefSchema } from '../../records/request.js';
import { UserSummarySchema } from '../../records/users.js';

const params = z.object({ userId: UserRefSchema });

/** The operations of social's blocks module (services/social/src/modules/blocks): contract row, input and output. */
export const SOCIAL_BLOCKS = {
  'BLK-1': {
    method: 'POST',
    path: '/users/{userId}/block',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Block a user',
    errors: ['VALIDATION_FAILED', 'SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'USER_NOT_FOUND'],
    scope: 'engage',

    params,
    response: { 200: MessageResponseSchema },
  },
  'BLK-2': {
    method: 'DELETE',
    path: '/users/{userId}/block',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Unblock a user',
    errors: ['UNAUTHORIZED', 'USER_NOT_FOUND'],
    scope: 'engage',

    params,
    response: { 204: z.null() },
  },
  'BLK-3': {
    method: 'GET',
    path: '/users/me/blocked',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'List blocked users',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: { 200: pageSchema(UserSummarySchema) },
  },
} satisfies Operations;

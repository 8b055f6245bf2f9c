import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { coercedNumber } from '../../records/primitives.js';
import { MAX_PAGE_SIZE, PageQuerySchema, UserRefSchema } from '../../records/request.js';
import { pageSchema } from '../../records/page.js';
import { FollowResponseSchema, UserSummarySchema } from '../../records/users.js';

const params = z.object({ userId: UserRefSchema });
const users = { 200: pageSchema(UserSummarySchema) };
const followResponse = { 200: FollowResponseSchema };
/** USR-16 accepts `limit` as an alias of `size`. */
const suggestedQuery = PageQuerySchema.extend({ limit: coercedNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).optional() });

/** The operations of social's follows module (services/social/src/modules/follows): contract row, input and output. */
export const SOCIAL_FOLLOWS = {
  'FOL-1': {
    method: 'POST',
    path: '/users/{userId}/follow',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Follow a user',
    errors: ['VALIDATION_FAILED', 'SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'USER_BLOCKED', 'USER_NOT_FOUND'],
    scope: 'engage',

    params,
    response: followResponse,
  },
  'FOL-2': {
    method: 'DELETE',
    path: '/users/{userId}/follow',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Unfollow a user',
    errors: ['UNAUTHORIZED', 'USER_NOT_FOUND'],
    scope: 'engage',

    params,
    response: followResponse,
  },
  'FOL-3': {
    method: 'GET',
    path: '/users/{userId}/followers',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Get followers',
    errors: ['VALIDATION_FAILED', 'PROFILE_PRIVATE', 'USER_NOT_FOUND'],
    scope: 'read',

    params,
    querystring: PageQuerySchema,
    response: users,
  },
  'FOL-4': {
    method: 'GET',
    path: '/users/{userId}/following',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Get following',
    errors: ['VALIDATION_FAILED', 'PROFILE_PRIVATE', 'USER_NOT_FOUND'],
    scope: 'read',

    params,
    querystring: PageQuerySchema,
    response: users,
  },
  'USR-16': {
    method: 'GET',
    path: '/users/suggested',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Suggested users to follow',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: suggestedQuery,
    response: users,
  },
} satisfies Operations;

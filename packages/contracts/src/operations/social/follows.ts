import { z } from 'zod';
import type { OperationSchemas } from '../../operation-schema.js';
import { coercedNumber } from '../../records/primitives.js';
import { MAX_PAGE_SIZE, PageQuerySchema, UserRefSchema } from '../../records/request.js';
import { pageSchema } from '../../records/page.js';
import { FollowResponseSchema, UserSummarySchema } from '../../records/users.js';

const params = z.object({ userId: UserRefSchema });
const users = { 200: pageSchema(UserSummarySchema) };
const followResponse = { 200: FollowResponseSchema };
/** USR-16 accepts `limit` as an alias of `size`. */
const suggestedQuery = PageQuerySchema.extend({ limit: coercedNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).optional() });

/** Input and output of social's follows operations (services/social/src/modules/follows). */
export const SOCIAL_FOLLOWS = {
  'FOL-1': { params, response: followResponse },
  'FOL-2': { params, response: followResponse },
  'FOL-3': { params, querystring: PageQuerySchema, response: users },
  'FOL-4': { params, querystring: PageQuerySchema, response: users },
  'USR-16': { querystring: suggestedQuery, response: users },
} satisfies OperationSchemas;

import { z } from 'zod';
import { coercedNumber, FollowResponseSchema, MAX_PAGE_SIZE, pageSchema, PageQuerySchema, UserSummarySchema } from '@msp/contracts';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '../users/user-ref.js';
import type { FollowsService } from './follows.service.js';

const params = z.object({ userId: UserRefSchema });
const response = { 200: pageSchema(UserSummarySchema) };
const followResponse = { 200: FollowResponseSchema };
/** USR-16 accepts `limit` as an alias of `size`. */
const suggestedQuery = PageQuerySchema.extend({ limit: coercedNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).optional() });

export const followsModule: FastifyPluginAsyncZod<{ follows: FollowsService }> = async (app, { follows }) => {
  app.get(
    '/users/:userId/followers',
    {
      schema: { operationId: 'FOL-3', summary: 'Get followers', tags: ['Followers'], params, querystring: PageQuerySchema, response },
    },
    async (request) => follows.list('followers', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  );
  app.get(
    '/users/:userId/following',
    {
      schema: { operationId: 'FOL-4', summary: 'Get following', tags: ['Followers'], params, querystring: PageQuerySchema, response },
    },
    async (request) => follows.list('following', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  );
  app.post(
    '/users/:userId/follow',
    { schema: { operationId: 'FOL-1', summary: 'Follow a user', tags: ['Followers'], params, response: followResponse } },
    async (request) => follows.follow(request.params.userId, requireCaller(request), String(request.id)),
  );
  app.delete(
    '/users/:userId/follow',
    { schema: { operationId: 'FOL-2', summary: 'Unfollow a user', tags: ['Followers'], params, response: followResponse } },
    async (request) => follows.unfollow(request.params.userId, requireCaller(request), String(request.id)),
  );
  app.get(
    '/users/suggested',
    {
      schema: { operationId: 'USR-16', summary: 'Suggested users to follow', tags: ['Users'], querystring: suggestedQuery, response },
    },
    async (request) => {
      const caller = requireCaller(request);
      return follows.suggested(caller, request.query.page, request.query.limit ?? request.query.size);
    },
  );
};

import { z } from 'zod';
import { coercedNumber, FollowResponseSchema, MAX_PAGE_SIZE, pageSchema, PageQuerySchema, UserSummarySchema } from '@msp/contracts';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '../users/user-ref.js';
import type { FollowsService } from './follows.service.js';

const params = z.object({ userId: UserRefSchema });
const response = { 200: pageSchema(UserSummarySchema) };
const followResponse = { 200: FollowResponseSchema };
/** USR-16 accepts `limit` as an alias of `size`. */
const suggestedQuery = PageQuerySchema.extend({ limit: coercedNumber(z.number().int().min(1).max(MAX_PAGE_SIZE)).optional() });

/** FOL-1…FOL-4 and USR-16, registered from their contract (packages/contracts: method, path, auth). */
export const followsModule: FastifyPluginAsyncZod<{ follows: FollowsService }> = async (app, { follows }) => {
  app.route({
    ...operation('FOL-3'),
    schema: { params, querystring: PageQuerySchema, response },
    handler: async (request) => follows.list('followers', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  });
  app.route({
    ...operation('FOL-4'),
    schema: { params, querystring: PageQuerySchema, response },
    handler: async (request) => follows.list('following', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  });
  app.route({
    ...operation('FOL-1'),
    schema: { params, response: followResponse },
    handler: async (request) => follows.follow(request.params.userId, requireCaller(request), String(request.id)),
  });
  app.route({
    ...operation('FOL-2'),
    schema: { params, response: followResponse },
    handler: async (request) => follows.unfollow(request.params.userId, requireCaller(request), String(request.id)),
  });
  app.route({
    ...operation('USR-16'),
    schema: { querystring: suggestedQuery, response },
    handler: async (request) => {
      const caller = requireCaller(request);
      return follows.suggested(caller, request.query.page, request.query.limit ?? request.query.size);
    },
  });
};

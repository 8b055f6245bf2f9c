import { z } from 'zod';
import { pageSchema, PageQuerySchema, UserSummarySchema } from '@msp/contracts';
import { callerFrom, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '../users/user-ref.js';
import type { FollowsService } from './follows.service.js';

const params = z.object({ userId: UserRefSchema });
const response = { 200: pageSchema(UserSummarySchema) };

export const followsModule: FastifyPluginAsyncZod<{ follows: FollowsService }> = async (app, { follows }) => {
  app.get(
    '/users/:userId/followers',
    {
      schema: { operationId: 'FOL-3', summary: 'Get followers', tags: ['Followers'], params, querystring: PageQuerySchema, response },
    },
    async (request) =>
      follows.list('followers', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  );
  app.get(
    '/users/:userId/following',
    {
      schema: { operationId: 'FOL-4', summary: 'Get following', tags: ['Followers'], params, querystring: PageQuerySchema, response },
    },
    async (request) =>
      follows.list('following', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  );
};

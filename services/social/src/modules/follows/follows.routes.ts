import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { FollowsService } from './follows.service.js';

/** FOL-1…FOL-4 and USR-16, registered from their contract (packages/contracts/src/operations/social/follows.ts). */
export const followsModule: FastifyPluginAsyncZod<{ follows: FollowsService }> = async (app, { follows }) => {
  app.route({
    ...operation('FOL-3'),
    handler: async (request) => follows.list('followers', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  });
  app.route({
    ...operation('FOL-4'),
    handler: async (request) => follows.list('following', request.params.userId, callerFrom(request), request.query.page, request.query.size),
  });
  app.route({
    ...operation('FOL-1'),
    handler: async (request) => follows.follow(request.params.userId, requireCaller(request), String(request.id)),
  });
  app.route({
    ...operation('FOL-2'),
    handler: async (request) => follows.unfollow(request.params.userId, requireCaller(request), String(request.id)),
  });
  app.route({
    ...operation('USR-16'),
    handler: async (request) => {
      const caller = requireCaller(request);
      return follows.suggested(caller, request.query.page, request.query.limit ?? request.query.size);
    },
  });
};

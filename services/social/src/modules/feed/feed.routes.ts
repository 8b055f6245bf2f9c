import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { FeedService } from './feed.service.js';

/** DSC-1 (R18), registered from its contract. */
export const feedModule: FastifyPluginAsyncZod<{ feed: FeedService }> = async (app, { feed }) => {
  app.route({
    ...operation('DSC-1'),
    handler: async (request) => feed.feed(requireCaller(request), request.query.page, request.query.size),
  });
};

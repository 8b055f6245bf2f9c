import { FeedItemSchema, pageSchema, PageQuerySchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { FeedService } from './feed.service.js';

/** DSC-1 (R18). */
export const feedModule: FastifyPluginAsyncZod<{ feed: FeedService }> = async (app, { feed }) => {
  app.get(
    '/feed',
    {
      schema: {
        operationId: 'DSC-1',
        summary: 'Followed users feed',
        tags: ['Discovery'],
        querystring: PageQuerySchema,
        response: { 200: pageSchema(FeedItemSchema) },
      },
    },
    async (request) => feed.feed(requireCaller(request), request.query.page, request.query.size),
  );
};

import { ConversationSchema, pageSchema, PageQuerySchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ConversationsService } from './conversations.service.js';

export const conversationsModule: FastifyPluginAsyncZod<{ conversations: ConversationsService }> = async (app, { conversations }) => {
  app.get(
    '/conversations',
    {
      schema: {
        operationId: 'MSG-1',
        summary: 'List direct-message threads',
        tags: ['Conversations'],
        querystring: PageQuerySchema,
        response: { 200: pageSchema(ConversationSchema) },
      },
      // Bearer route: 401 before any validation of the query.
      onRequest: async (request) => {
        requireCaller(request);
      },
    },
    async (request) => conversations.list(requireCaller(request).userId, request.query.page, request.query.size),
  );
};

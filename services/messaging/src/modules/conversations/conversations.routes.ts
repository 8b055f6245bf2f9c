import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { MessagesService } from '../messages/messages.service.js';
import type { ConversationsService } from './conversations.service.js';

/** MSG-1…MSG-4, registered from their contract (packages/contracts/src/operations/messaging/conversations.ts; bearer: the contract's check answers 401 before any validation). */
export const conversationsModule: FastifyPluginAsyncZod<{ conversations: ConversationsService; messages: MessagesService }> = async (
  app,
  { conversations, messages },
) => {
  app.route({
    ...operation('MSG-1'),
    handler: async (request) => conversations.list(requireCaller(request).userId, request.query.page, request.query.size),
  });
  app.route({
    ...operation('MSG-2'),
    handler: async (request, reply) => {
      const { created, conversation } = await conversations.start(requireCaller(request).userId, request.params.userId);
      return reply.code(created ? 201 : 200).send(conversation);
    },
  });
  app.route({
    ...operation('MSG-3'),
    handler: async (request) => messages.list(requireCaller(request), request.params.conversationId, request.query.page, request.query.size),
  });
  app.route({
    ...operation('MSG-4'),
    handler: async (request, reply) => {
      const message = await messages.send(requireCaller(request), request.params.conversationId, request.body);
      return reply.code(201).send(message);
    },
  });
};

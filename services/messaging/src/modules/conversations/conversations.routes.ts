import { z } from 'zod';
import { ConversationSchema, IdParamSchema, IdSchema, MessageResourceTypeSchema, MessageSchema, pageSchema, PageQuerySchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { MessagesService } from '../messages/messages.service.js';
import type { ConversationsService } from './conversations.service.js';

const ResourceInputSchema = z.object({ resourceType: MessageResourceTypeSchema, resourceId: IdSchema });

/**
 * MSG-4 body. Lengths and the "body or resources" rule are checked by the service after trimming
 * (R16); the array limit is also the service's, since the single resourceType/resourceId pair
 * joins the list. A hard cap keeps absurd arrays from being parsed at all.
 */
const SendBodySchema = z.object({
  body: z.string().max(100_000).optional(),
  content: z.string().max(100_000).optional(),
  resources: z.array(ResourceInputSchema).max(5).optional(),
  resourceType: MessageResourceTypeSchema.optional(),
  resourceId: IdSchema.optional(),
});

/** MSG-1…MSG-4, registered from their contract (bearer: the contract's check answers 401 before any validation). */
export const conversationsModule: FastifyPluginAsyncZod<{ conversations: ConversationsService; messages: MessagesService }> = async (
  app,
  { conversations, messages },
) => {
  app.route({
    ...operation('MSG-1'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(ConversationSchema) } },
    handler: async (request) => conversations.list(requireCaller(request).userId, request.query.page, request.query.size),
  });
  app.route({
    ...operation('MSG-2'),
    schema: { params: IdParamSchema('userId'), response: { 200: ConversationSchema, 201: ConversationSchema } },
    handler: async (request, reply) => {
      const { created, conversation } = await conversations.start(requireCaller(request).userId, request.params.userId);
      return reply.code(created ? 201 : 200).send(conversation);
    },
  });
  app.route({
    ...operation('MSG-3'),
    schema: { params: IdParamSchema('conversationId'), querystring: PageQuerySchema, response: { 200: pageSchema(MessageSchema) } },
    handler: async (request) => messages.list(requireCaller(request), request.params.conversationId, request.query.page, request.query.size),
  });
  app.route({
    ...operation('MSG-4'),
    schema: { params: IdParamSchema('conversationId'), body: SendBodySchema, response: { 201: MessageSchema } },
    handler: async (request, reply) => {
      const message = await messages.send(requireCaller(request), request.params.conversationId, request.body);
      return reply.code(201).send(message);
    },
  });
};

import { z } from 'zod';
import { ConversationSchema, IdParamSchema, IdSchema, MessageResourceTypeSchema, MessageSchema, pageSchema, PageQuerySchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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

/** Bearer routes: 401 before any validation of path, query or body. */
const bearer = {
  onRequest: async (request: Parameters<typeof requireCaller>[0]) => {
    requireCaller(request);
  },
};

export const conversationsModule: FastifyPluginAsyncZod<{ conversations: ConversationsService; messages: MessagesService }> = async (
  app,
  { conversations, messages },
) => {
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
      ...bearer,
    },
    async (request) => conversations.list(requireCaller(request).userId, request.query.page, request.query.size),
  );
  app.post(
    '/conversations/:userId/start',
    {
      schema: {
        operationId: 'MSG-2',
        summary: 'Start a thread',
        tags: ['Conversations'],
        params: IdParamSchema('userId'),
        response: { 200: ConversationSchema, 201: ConversationSchema },
      },
      ...bearer,
    },
    async (request, reply) => {
      const { created, conversation } = await conversations.start(requireCaller(request).userId, request.params.userId);
      return reply.code(created ? 201 : 200).send(conversation);
    },
  );
  app.get(
    '/conversations/:conversationId/messages',
    {
      schema: {
        operationId: 'MSG-3',
        summary: 'Messages within a thread',
        tags: ['Conversations'],
        params: IdParamSchema('conversationId'),
        querystring: PageQuerySchema,
        response: { 200: pageSchema(MessageSchema) },
      },
      ...bearer,
    },
    async (request) => messages.list(requireCaller(request), request.params.conversationId, request.query.page, request.query.size),
  );
  app.post(
    '/conversations/:conversationId/messages',
    {
      schema: {
        operationId: 'MSG-4',
        summary: 'Send a message',
        tags: ['Conversations'],
        params: IdParamSchema('conversationId'),
        body: SendBodySchema,
        response: { 201: MessageSchema },
      },
      ...bearer,
    },
    async (request, reply) => {
      const message = await messages.send(requireCaller(request), request.params.conversationId, request.body);
      return reply.code(201).send(message);
    },
  );
};

import { z } from 'zod';
import { MessageResponseSchema, pageSchema, PageQuerySchema, UserSummarySchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '../users/user-ref.js';
import type { BlocksService } from './blocks.service.js';

const params = z.object({ userId: UserRefSchema });

export const blocksModule: FastifyPluginAsyncZod<{ blocks: BlocksService }> = async (app, { blocks }) => {
  app.post(
    '/users/:userId/block',
    { schema: { operationId: 'BLK-1', summary: 'Block a user', tags: ['Block'], params, response: { 200: MessageResponseSchema } } },
    async (request) => blocks.block(request.params.userId, requireCaller(request), String(request.id)),
  );
  app.delete(
    '/users/:userId/block',
    { schema: { operationId: 'BLK-2', summary: 'Unblock a user', tags: ['Block'], params, response: { 204: z.null() } } },
    async (request, reply) => {
      await blocks.unblock(request.params.userId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  );
  app.get(
    '/users/me/blocked',
    {
      schema: {
        operationId: 'BLK-3',
        summary: 'List blocked users',
        tags: ['Block'],
        querystring: PageQuerySchema,
        response: { 200: pageSchema(UserSummarySchema) },
      },
    },
    async (request) => blocks.list(requireCaller(request), request.query.page, request.query.size),
  );
};

import { z } from 'zod';
import { MessageResponseSchema, pageSchema, PageQuerySchema, UserSummarySchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '@msp/contracts';
import type { BlocksService } from './blocks.service.js';

const params = z.object({ userId: UserRefSchema });

/** BLK-1…BLK-3, registered from their contract (packages/contracts: method, path, bearer auth). */
export const blocksModule: FastifyPluginAsyncZod<{ blocks: BlocksService }> = async (app, { blocks }) => {
  app.route({
    ...operation('BLK-1'),
    schema: { params, response: { 200: MessageResponseSchema } },
    handler: async (request) => blocks.block(request.params.userId, requireCaller(request), String(request.id)),
  });
  app.route({
    ...operation('BLK-2'),
    schema: { params, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await blocks.unblock(request.params.userId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });
  app.route({
    ...operation('BLK-3'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(UserSummarySchema) } },
    handler: async (request) => blocks.list(requireCaller(request), request.query.page, request.query.size),
  });
};

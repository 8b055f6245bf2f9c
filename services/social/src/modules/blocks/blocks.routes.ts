import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { BlocksService } from './blocks.service.js';

/** BLK-1…BLK-3, registered from their contract (packages/contracts: method, path, bearer auth). */
export const blocksModule: FastifyPluginAsyncZod<{ blocks: BlocksService }> = async (app, { blocks }) => {
  app.route({
    ...operation('BLK-1'),
    handler: async (request) => blocks.block(request.params.userId, requireCaller(request), String(request.id)),
  });
  app.route({
    ...operation('BLK-2'),
    handler: async (request, reply) => {
      await blocks.unblock(request.params.userId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });
  app.route({
    ...operation('BLK-3'),
    handler: async (request) => blocks.list(requireCaller(request), request.query.page, request.query.size),
  });
};

import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { DiscoveryService } from './discovery.service.js';

/** DSC-2 … DSC-7 (docs/api.md "DSC: Discovery"; R18), registered from their contract (packages/contracts/src/operations/catalog/discovery.ts). */
export const discoveryModule: FastifyPluginAsyncZod<{ discovery: DiscoveryService }> = async (app, { discovery }) => {
  app.route({
    ...operation('DSC-2'),
    handler: async (request) => {
      const { genre, page, size, limit } = request.query;
      return discovery.trending(callerFrom(request), { genre, page, size: limit ?? size });
    },
  });

  app.route({
    ...operation('DSC-3'),
    handler: async (request) => discovery.search(callerFrom(request), request.query),
  });

  app.route({
    ...operation('DSC-4'),
    handler: async (request) => discovery.resolve(callerFrom(request), request.query.url),
  });

  app.route({
    ...operation('DSC-5'),
    handler: async (request) => discovery.genreStation(callerFrom(request), request.query.genre, request.query),
  });

  app.route({
    ...operation('DSC-6'),
    handler: async (request) => discovery.artistStation(callerFrom(request), request.query.artistId, request.query),
  });

  app.route({
    ...operation('DSC-7'),
    handler: async (request) => discovery.likesStation(requireCaller(request), request.query),
  });
};

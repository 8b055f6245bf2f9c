import { CURATED_GENRES } from '@msp/contracts';
import { operation, type FastifyPluginAsyncZod } from '@msp/http';

/** The list changes only with a release, so clients and the gateway may keep it for a day. */
const CACHE_CONTROL = 'public, max-age=86400';

export const genresModule: FastifyPluginAsyncZod = async (app) => {
  app.route({
    ...operation('TRK-20'),
    handler: async (_request, reply) => {
      reply.header('cache-control', CACHE_CONTROL);
      return [...CURATED_GENRES];
    },
  });
};

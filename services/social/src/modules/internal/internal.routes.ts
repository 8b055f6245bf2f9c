import { INTERNAL_OPERATIONS } from '@msp/contracts';
import { internalRoute, type FastifyPluginAsyncZod } from '@msp/http';
import type { InternalReadsService } from './internal.service.js';

/**
 * Service-to-service batch reads (INTERNAL_OPERATIONS): one call per page of items, one SQL statement
 * per call. Not under /api and hidden from OpenAPI, so the gateway never exposes them. The answer
 * (RelationshipsResponseSchema) is JSON text built by PostgreSQL and sent as is: no zod pass over
 * it on this hot path (tests check it against the schema).
 */
export const internalModule: FastifyPluginAsyncZod<{ reads: InternalReadsService }> = async (app, { reads }) => {
  app.route({
    ...internalRoute(INTERNAL_OPERATIONS.relationships),
    handler: async (request, reply) => reply.type('application/json').send(await reads.relationships(request.body)),
  });
};

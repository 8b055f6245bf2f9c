import { INTERNAL_ROUTES, InternalTracksRequestSchema, InternalTracksResponseSchema } from '@msp/contracts';
import type { FastifyPluginAsyncZod } from '@msp/http';
import type { InternalTracksService } from './internal-tracks.service.js';

/**
 * Service-to-service batch reads of catalog (INTERNAL_ROUTES): one call per page of items. Not under
 * /api and hidden from OpenAPI, so the gateway never exposes them.
 */
export const internalModule: FastifyPluginAsyncZod<{ tracks: InternalTracksService }> = async (app, { tracks }) => {
  app.post(
    INTERNAL_ROUTES.tracks,
    { schema: { hide: true, body: InternalTracksRequestSchema, response: { 200: InternalTracksResponseSchema } } },
    async (request) => ({ tracks: await tracks.render(request.body) }),
  );
};

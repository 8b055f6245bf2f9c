import {
  INTERNAL_ROUTES,
  InternalPlaylistsRequestSchema,
  InternalPlaylistsResponseSchema,
  InternalTracksRequestSchema,
  InternalTracksResponseSchema,
} from '@msp/contracts';
import type { FastifyPluginAsyncZod } from '@msp/http';
import type { InternalPlaylistsService } from './internal-playlists.service.js';
import type { InternalTracksService } from './internal-tracks.service.js';

/**
 * Service-to-service batch reads of catalog (INTERNAL_ROUTES): one call per page of items. Not under
 * /api and hidden from OpenAPI, so the gateway never exposes them.
 */
export const internalModule: FastifyPluginAsyncZod<{ tracks: InternalTracksService; playlists: InternalPlaylistsService }> = async (
  app,
  { tracks, playlists },
) => {
  app.post(
    INTERNAL_ROUTES.tracks,
    { schema: { hide: true, body: InternalTracksRequestSchema, response: { 200: InternalTracksResponseSchema } } },
    async (request) => ({ tracks: await tracks.render(request.body) }),
  );
  app.post(
    INTERNAL_ROUTES.playlists,
    { schema: { hide: true, body: InternalPlaylistsRequestSchema, response: { 200: InternalPlaylistsResponseSchema } } },
    async (request) => ({ playlists: await playlists.render(request.body) }),
  );
};

import { INTERNAL_OPERATIONS } from '@msp/contracts';
import { internalRoute, type FastifyPluginAsyncZod } from '@msp/http';
import type { InternalPlaylistsService } from './internal-playlists.service.js';
import type { InternalTracksService } from './internal-tracks.service.js';

/**
 * Service-to-service batch reads of catalog (INTERNAL_OPERATIONS): one call per page of items. Not under
 * /api and hidden from OpenAPI, so the gateway never exposes them.
 */
export const internalModule: FastifyPluginAsyncZod<{ tracks: InternalTracksService; playlists: InternalPlaylistsService }> = async (
  app,
  { tracks, playlists },
) => {
  app.route({ ...internalRoute(INTERNAL_OPERATIONS.tracks), handler: async (request) => ({ tracks: await tracks.render(request.body) }) });
  app.route({ ...internalRoute(INTERNAL_OPERATIONS.playlists), handler: async (request) => ({ playlists: await playlists.render(request.body) }) });
};

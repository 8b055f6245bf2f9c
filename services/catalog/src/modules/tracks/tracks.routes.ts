import type { FastifyRequest } from 'fastify';
import { pageSchema, PageQuerySchema, TrackSchema, TrackStateSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { TracksService } from './tracks.service.js';

const OwnTracksQuerySchema = PageQuerySchema.extend({ state: TrackStateSchema.optional() });

/** Bearer routes answer 401 before looking at the request's parameters. */
async function bearer(request: FastifyRequest) {
  requireCaller(request);
}

export const tracksModule: FastifyPluginAsyncZod<{ tracks: TracksService }> = async (app, { tracks }) => {
  app.get(
    '/users/me/tracks',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-21',
        summary: 'Tracks of the current user',
        tags: ['Tracks'],
        security: [{ bearerAuth: [] }],
        querystring: OwnTracksQuerySchema,
        response: { 200: pageSchema(TrackSchema) },
      },
    },
    async (request) => tracks.listOwn(requireCaller(request), request.query),
  );
};

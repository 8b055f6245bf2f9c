import { z } from 'zod';
import { pageSchema, PageQuerySchema, RadioTrackSchema } from '@msp/contracts';
import { callerFrom, type FastifyPluginAsyncZod } from '@msp/http';
import type { TracksService } from '../tracks/tracks.service.js';

const GenreStationQuerySchema = PageQuerySchema.extend({ genre: z.string().trim().min(1).max(100) });

/** DSC-5 (interface.md §4.5): public FINISHED PLAYABLE tracks of the genre, in an order fixed for the day (R18). */
export const stationsModule: FastifyPluginAsyncZod<{ tracks: TracksService }> = async (app, { tracks }) => {
  app.get(
    '/stations/genre',
    {
      schema: {
        operationId: 'DSC-5',
        summary: 'Generate a radio station based on a genre',
        tags: ['Discovery'],
        querystring: GenreStationQuerySchema,
        response: { 200: pageSchema(RadioTrackSchema) },
      },
    },
    async (request) => tracks.stationByGenre(request.query.genre, callerFrom(request), request.query),
  );
};

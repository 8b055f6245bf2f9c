import { z } from 'zod';
import { pageSchema, PageQuerySchema, PlaylistSchema, RepostHistoryEntrySchema, TrackSchema } from '@msp/contracts';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '@msp/contracts';
import type { ActivityService } from './activity.service.js';

const byUser = z.object({ username: UserRefSchema });
const tracks = { 200: pageSchema(TrackSchema) };

/** USR-20 … USR-22 and ENG-18 … ENG-20, registered from their contract. */
export const activityModule: FastifyPluginAsyncZod<{ activity: ActivityService }> = async (app, { activity }) => {
  app.route({
    ...operation('USR-20'),
    schema: { querystring: PageQuerySchema, response: tracks },
    handler: async (req) => {
      const caller = requireCaller(req);
      return activity.likedTracks('me', caller, req.query.page, req.query.size);
    },
  });
  app.route({
    ...operation('USR-21'),
    schema: { params: byUser, querystring: PageQuerySchema, response: { 200: pageSchema(PlaylistSchema) } },
    handler: async (req) => activity.likedPlaylists(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('USR-22'),
    schema: { params: byUser, querystring: PageQuerySchema, response: tracks },
    handler: async (req) => activity.repostedTracks(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-18'),
    schema: { querystring: PageQuerySchema, response: tracks },
    handler: async (req) => {
      const caller = requireCaller(req);
      return activity.repostedTracks('me', caller, req.query.page, req.query.size);
    },
  });
  app.route({
    ...operation('ENG-19'),
    schema: { params: byUser, querystring: PageQuerySchema, response: { 200: pageSchema(RepostHistoryEntrySchema) } },
    handler: async (req) => activity.repostHistory(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-20'),
    schema: { params: byUser, querystring: PageQuerySchema, response: tracks },
    handler: async (req) => activity.likedTracks(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
};

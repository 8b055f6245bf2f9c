import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ActivityService } from './activity.service.js';

/** USR-20 … USR-22 and ENG-18 … ENG-20, registered from their contract. */
export const activityModule: FastifyPluginAsyncZod<{ activity: ActivityService }> = async (app, { activity }) => {
  app.route({
    ...operation('USR-20'),
    handler: async (req) => {
      const caller = requireCaller(req);
      return activity.likedTracks('me', caller, req.query.page, req.query.size);
    },
  });
  app.route({
    ...operation('USR-21'),
    handler: async (req) => activity.likedPlaylists(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('USR-22'),
    handler: async (req) => activity.repostedTracks(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-18'),
    handler: async (req) => {
      const caller = requireCaller(req);
      return activity.repostedTracks('me', caller, req.query.page, req.query.size);
    },
  });
  app.route({
    ...operation('ENG-19'),
    handler: async (req) => activity.repostHistory(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-20'),
    handler: async (req) => activity.likedTracks(req.params.username, callerFrom(req), req.query.page, req.query.size),
  });
};

import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { EngagementService } from './engagement.service.js';

/** ENG-1 … ENG-12: likes and reposts of tracks and playlists, and who made them; registered from their contract. */
export const engagementModule: FastifyPluginAsyncZod<{ engagement: EngagementService }> = async (app, { engagement: svc }) => {
  app.route({
    ...operation('ENG-1'),
    handler: async (req) => svc.like('TRACK', req.params.trackId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-2'),
    handler: async (req) => svc.like('TRACK', req.params.trackId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-3'),
    handler: async (req) => svc.actors('like', 'TRACK', req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-4'),
    handler: async (req) => svc.repost('TRACK', req.params.trackId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-5'),
    handler: async (req) => svc.repost('TRACK', req.params.trackId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-6'),
    handler: async (req) => svc.actors('repost', 'TRACK', req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  });

  app.route({
    ...operation('ENG-7'),
    handler: async (req) => svc.like('PLAYLIST', req.params.playlistId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-8'),
    handler: async (req) => svc.like('PLAYLIST', req.params.playlistId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-9'),
    handler: async (req) => svc.actors('like', 'PLAYLIST', req.params.playlistId, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-10'),
    handler: async (req) => svc.repost('PLAYLIST', req.params.playlistId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-11'),
    handler: async (req) => svc.repost('PLAYLIST', req.params.playlistId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-12'),
    handler: async (req) => svc.actors('repost', 'PLAYLIST', req.params.playlistId, callerFrom(req), req.query.page, req.query.size),
  });
};

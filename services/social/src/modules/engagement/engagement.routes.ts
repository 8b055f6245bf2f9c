import { IdParamSchema, LikeResponseSchema, pageSchema, PageQuerySchema, RepostResponseSchema, UserSummarySchema } from '@msp/contracts';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { EngagementService } from './engagement.service.js';

const trackParams = IdParamSchema('trackId');
const playlistParams = IdParamSchema('playlistId');
const like = { 200: LikeResponseSchema };
const repost = { 200: RepostResponseSchema };
const users = { 200: pageSchema(UserSummarySchema) };

/** ENG-1 … ENG-12: likes and reposts of tracks and playlists, and who made them; registered from their contract. */
export const engagementModule: FastifyPluginAsyncZod<{ engagement: EngagementService }> = async (app, { engagement: svc }) => {
  app.route({
    ...operation('ENG-1'),
    schema: { params: trackParams, response: like },
    handler: async (req) => svc.like('TRACK', req.params.trackId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-2'),
    schema: { params: trackParams, response: like },
    handler: async (req) => svc.like('TRACK', req.params.trackId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-3'),
    schema: { params: trackParams, querystring: PageQuerySchema, response: users },
    handler: async (req) => svc.actors('like', 'TRACK', req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-4'),
    schema: { params: trackParams, response: repost },
    handler: async (req) => svc.repost('TRACK', req.params.trackId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-5'),
    schema: { params: trackParams, response: repost },
    handler: async (req) => svc.repost('TRACK', req.params.trackId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-6'),
    schema: { params: trackParams, querystring: PageQuerySchema, response: users },
    handler: async (req) => svc.actors('repost', 'TRACK', req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  });

  app.route({
    ...operation('ENG-7'),
    schema: { params: playlistParams, response: like },
    handler: async (req) => svc.like('PLAYLIST', req.params.playlistId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-8'),
    schema: { params: playlistParams, response: like },
    handler: async (req) => svc.like('PLAYLIST', req.params.playlistId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-9'),
    schema: { params: playlistParams, querystring: PageQuerySchema, response: users },
    handler: async (req) => svc.actors('like', 'PLAYLIST', req.params.playlistId, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-10'),
    schema: { params: playlistParams, response: repost },
    handler: async (req) => svc.repost('PLAYLIST', req.params.playlistId, requireCaller(req), true, String(req.id)),
  });
  app.route({
    ...operation('ENG-11'),
    schema: { params: playlistParams, response: repost },
    handler: async (req) => svc.repost('PLAYLIST', req.params.playlistId, requireCaller(req), false, String(req.id)),
  });
  app.route({
    ...operation('ENG-12'),
    schema: { params: playlistParams, querystring: PageQuerySchema, response: users },
    handler: async (req) => svc.actors('repost', 'PLAYLIST', req.params.playlistId, callerFrom(req), req.query.page, req.query.size),
  });
};

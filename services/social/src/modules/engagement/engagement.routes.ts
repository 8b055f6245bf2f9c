import { IdParamSchema, LikeResponseSchema, pageSchema, PageQuerySchema, RepostResponseSchema, UserSummarySchema } from '@msp/contracts';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { EngagementService } from './engagement.service.js';

const trackParams = IdParamSchema('trackId');
const playlistParams = IdParamSchema('playlistId');
const like = { 200: LikeResponseSchema };
const repost = { 200: RepostResponseSchema };
const users = { 200: pageSchema(UserSummarySchema) };
const tags = ['Engagement'];

/** ENG-1 … ENG-12: likes and reposts of tracks and playlists, and who made them. */
export const engagementModule: FastifyPluginAsyncZod<{ engagement: EngagementService }> = async (app, { engagement: svc }) => {
  app.post('/tracks/:trackId/like', { schema: { operationId: 'ENG-1', summary: 'Like a track', tags, params: trackParams, response: like } }, async (req) =>
    svc.like('TRACK', req.params.trackId, requireCaller(req), true, String(req.id)),
  );
  app.delete('/tracks/:trackId/like', { schema: { operationId: 'ENG-2', summary: 'Unlike a track', tags, params: trackParams, response: like } }, async (req) =>
    svc.like('TRACK', req.params.trackId, requireCaller(req), false, String(req.id)),
  );
  app.get(
    '/users/tracks/:trackId/like',
    { schema: { operationId: 'ENG-3', summary: 'Track likers', tags, params: trackParams, querystring: PageQuerySchema, response: users } },
    async (req) => svc.actors('like', 'TRACK', req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  );
  app.post(
    '/tracks/:trackId/repost',
    { schema: { operationId: 'ENG-4', summary: 'Repost a track', tags, params: trackParams, response: repost } },
    async (req) => svc.repost('TRACK', req.params.trackId, requireCaller(req), true, String(req.id)),
  );
  app.delete(
    '/tracks/:trackId/repost',
    { schema: { operationId: 'ENG-5', summary: 'Remove track repost', tags, params: trackParams, response: repost } },
    async (req) => svc.repost('TRACK', req.params.trackId, requireCaller(req), false, String(req.id)),
  );
  app.get(
    '/users/tracks/:trackId/reposters',
    { schema: { operationId: 'ENG-6', summary: 'Track reposters', tags, params: trackParams, querystring: PageQuerySchema, response: users } },
    async (req) => svc.actors('repost', 'TRACK', req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  );

  app.post(
    '/playlists/:playlistId/like',
    { schema: { operationId: 'ENG-7', summary: 'Like a playlist', tags, params: playlistParams, response: like } },
    async (req) => svc.like('PLAYLIST', req.params.playlistId, requireCaller(req), true, String(req.id)),
  );
  app.delete(
    '/playlists/:playlistId/like',
    { schema: { operationId: 'ENG-8', summary: 'Unlike a playlist', tags, params: playlistParams, response: like } },
    async (req) => svc.like('PLAYLIST', req.params.playlistId, requireCaller(req), false, String(req.id)),
  );
  app.get(
    '/users/playlists/:playlistId/like',
    {
      schema: { operationId: 'ENG-9', summary: 'Playlist likers', tags, params: playlistParams, querystring: PageQuerySchema, response: users },
    },
    async (req) => svc.actors('like', 'PLAYLIST', req.params.playlistId, callerFrom(req), req.query.page, req.query.size),
  );
  app.post(
    '/playlists/:playlistId/repost',
    { schema: { operationId: 'ENG-10', summary: 'Repost a playlist', tags, params: playlistParams, response: repost } },
    async (req) => svc.repost('PLAYLIST', req.params.playlistId, requireCaller(req), true, String(req.id)),
  );
  app.delete(
    '/playlists/:playlistId/repost',
    { schema: { operationId: 'ENG-11', summary: 'Remove playlist repost', tags, params: playlistParams, response: repost } },
    async (req) => svc.repost('PLAYLIST', req.params.playlistId, requireCaller(req), false, String(req.id)),
  );
  app.get(
    '/users/playlists/:playlistId/reposters',
    {
      schema: {
        operationId: 'ENG-12',
        summary: 'Playlist reposters',
        tags,
        params: playlistParams,
        querystring: PageQuerySchema,
        response: users,
      },
    },
    async (req) => svc.actors('repost', 'PLAYLIST', req.params.playlistId, callerFrom(req), req.query.page, req.query.size),
  );
};

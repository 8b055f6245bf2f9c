import { z } from 'zod';
import { pageSchema, PageQuerySchema, PlaylistSchema, RepostHistoryEntrySchema, TrackSchema } from '@msp/contracts';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { UserRefSchema } from '../users/user-ref.js';
import type { ActivityService } from './activity.service.js';

const byUser = z.object({ username: UserRefSchema });
const tracks = { 200: pageSchema(TrackSchema) };

/** USR-20 … USR-22 and ENG-18 … ENG-20. */
export const activityModule: FastifyPluginAsyncZod<{ activity: ActivityService }> = async (app, { activity }) => {
  app.get(
    '/users/me/liked-tracks',
    {
      schema: {
        operationId: 'USR-20',
        summary: 'Tracks liked by the current user',
        tags: ['Users'],
        querystring: PageQuerySchema,
        response: tracks,
      },
    },
    async (req) => {
      const caller = requireCaller(req);
      return activity.likedTracks('me', caller, req.query.page, req.query.size);
    },
  );
  app.get(
    '/users/:username/liked-playlists',
    {
      schema: {
        operationId: 'USR-21',
        summary: 'Playlists liked by a user',
        tags: ['Users'],
        params: byUser,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(PlaylistSchema) },
      },
    },
    async (req) => activity.likedPlaylists(req.params.username, callerFrom(req), req.query.page, req.query.size),
  );
  app.get(
    '/users/:username/reposted-tracks',
    {
      schema: {
        operationId: 'USR-22',
        summary: 'Tracks reposted by a user',
        tags: ['Users'],
        params: byUser,
        querystring: PageQuerySchema,
        response: tracks,
      },
    },
    async (req) => activity.repostedTracks(req.params.username, callerFrom(req), req.query.page, req.query.size),
  );
  app.get(
    '/users/me/repost',
    {
      schema: {
        operationId: 'ENG-18',
        summary: 'Tracks reposted by a user',
        tags: ['Engagement'],
        querystring: PageQuerySchema,
        response: tracks,
      },
    },
    async (req) => {
      const caller = requireCaller(req);
      return activity.repostedTracks('me', caller, req.query.page, req.query.size);
    },
  );
  app.get(
    '/users/repost/:username',
    {
      schema: {
        operationId: 'ENG-19',
        summary: 'User repost history',
        tags: ['Engagement'],
        params: byUser,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(RepostHistoryEntrySchema) },
      },
    },
    async (req) => activity.repostHistory(req.params.username, callerFrom(req), req.query.page, req.query.size),
  );
  app.get(
    '/users/:username/liked-tracks',
    {
      schema: {
        operationId: 'ENG-20',
        summary: 'Tracks liked by a user',
        tags: ['Engagement'],
        params: byUser,
        querystring: PageQuerySchema,
        response: tracks,
      },
    },
    async (req) => activity.likedTracks(req.params.username, callerFrom(req), req.query.page, req.query.size),
  );
};

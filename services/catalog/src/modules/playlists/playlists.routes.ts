import type { FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import {
  EmbedCodeSchema,
  IdParamSchema,
  IdSchema,
  IdTextSchema,
  pageSchema,
  PageQuerySchema,
  PlaylistSchema,
  PlaylistSecretLinkSchema,
  ResolveResultSchema,
  TrackSummarySchema,
  MAX_ID,
} from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { readPlaylistInput } from './playlist-input.js';
import type { PlaylistEditsService } from './playlist-edits.service.js';
import type { PlaylistsService } from './playlists.service.js';

const PlaylistParams = IdParamSchema('playlistId');
const PlaylistTrackParams = z.object({ playlistId: IdTextSchema, trackId: IdTextSchema });
/** R1: `/users/{username}/…` also accepts a user id (a username is never all digits). */
const UserParams = z.object({ username: z.string().min(1).max(100) });
const UserPlaylistParams = z.object({ username: z.string().min(1).max(100), playlistId: IdTextSchema });
const TokenParams = z.object({ token: z.string().min(1).max(200) });
const ResolveQuery = z.object({ playlistSlug: z.string().trim().min(1).max(200) });
const AddTrackQuery = z.object({ trackId: IdTextSchema.optional() });
const AddTrackBody = z.object({ trackId: IdSchema.optional() }).nullish();

/**
 * PLS-10 body: `{trackIds}`; a Playlist-shaped body is accepted too (order from
 * `paginatedTrackResponse.content[].id`, else `trackSummaryDto[].id`).
 */
const IdItem = z.object({ id: IdSchema });
const ReorderBody = z
  .object({
    trackIds: z.array(IdSchema).max(1000).optional(),
    paginatedTrackResponse: z.object({ content: z.array(IdItem).max(1000) }).nullish(),
    trackSummaryDto: z.array(IdItem).max(1000).nullish(),
  })
  .transform((b, ctx) => {
    const ids = b.trackIds ?? b.paginatedTrackResponse?.content.map((t) => t.id) ?? b.trackSummaryDto?.map((t) => t.id);
    if (!ids) {
      ctx.addIssue({ code: 'custom', path: ['trackIds'], message: 'Expected trackIds (or a Playlist-shaped body with its tracks)' });
      return z.NEVER;
    }
    return ids;
  });

const bearerAuth = [{ bearerAuth: [] }];
const tags = ['Playlists'];

async function bearer(request: FastifyRequest) {
  requireCaller(request);
}

function userRef(value: string): { userId?: number; username?: string } {
  if (!/^\d+$/.test(value)) return { username: value.toLowerCase() };
  // An all-digit reference is an id; past the int4 range no such user can exist (never a 500).
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id > MAX_ID) throw new AppError('USER_NOT_FOUND', 'No such user.');
  return { userId: id };
}

export interface PlaylistsModuleOptions {
  playlists: PlaylistsService;
  edits: PlaylistEditsService;
  storage: ObjectStorage;
  coverMaxBytes: number;
  publicBaseUrl: string;
}

export const playlistsModule: FastifyPluginAsyncZod<PlaylistsModuleOptions> = async (app, { playlists, edits, storage, coverMaxBytes, publicBaseUrl }) => {
  await app.register(multipart);
  const inputOptions = (partial: boolean) => ({ partial, coverMaxBytes, storage, publicBaseUrl });
  const PlaylistPage = pageSchema(PlaylistSchema);

  app.get(
    '/users/me/playlists',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-1',
        summary: 'Get all playlists created by the current user',
        tags,
        security: bearerAuth,
        querystring: PageQuerySchema,
        response: { 200: PlaylistPage },
      },
    },
    async (request) => playlists.listOwn(requireCaller(request), request.query),
  );

  app.get(
    '/users/me/playlists/:playlistId',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-2',
        summary: 'Current user playlist with tracks',
        tags,
        security: bearerAuth,
        params: PlaylistParams,
        querystring: PageQuerySchema,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => playlists.getOwn(request.params.playlistId, requireCaller(request), request.query),
  );

  app.post(
    '/playlists',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-3',
        summary: 'Create playlist',
        tags,
        security: bearerAuth,
        consumes: ['application/json', 'multipart/form-data'],
        response: { 201: PlaylistSchema },
      },
    },
    async (request, reply) => {
      const caller = requireCaller(request);
      const { fields, cover } = await readPlaylistInput(request, inputOptions(false));
      return reply.code(201).send(await edits.create(caller, fields, cover, String(request.id)));
    },
  );

  app.get(
    '/playlists/resolve',
    { schema: { operationId: 'PLS-16', summary: 'Resolve playlist slug to id', tags, querystring: ResolveQuery, response: { 200: ResolveResultSchema } } },
    async (request) => playlists.resolve(request.query.playlistSlug, callerFrom(request)),
  );

  app.get(
    '/playlists/token/:token',
    {
      schema: {
        operationId: 'PLS-14',
        summary: 'Playlist with token',
        tags,
        params: TokenParams,
        querystring: PageQuerySchema,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => playlists.byToken(request.params.token, callerFrom(request), request.query),
  );

  app.get(
    '/playlists/:playlistId',
    {
      schema: {
        operationId: 'PLS-4',
        summary: 'Playlist with tracks',
        tags,
        params: PlaylistParams,
        querystring: PageQuerySchema,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => playlists.get(request.params.playlistId, callerFrom(request), request.query),
  );

  app.patch(
    '/playlists/:playlistId',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-5',
        summary: 'Update playlist metadata',
        tags,
        security: bearerAuth,
        consumes: ['application/json', 'multipart/form-data'],
        params: PlaylistParams,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => {
      const caller = requireCaller(request);
      const { fields, cover } = await readPlaylistInput(request, inputOptions(true));
      return edits.update(request.params.playlistId, caller, fields, cover, String(request.id));
    },
  );

  app.delete(
    '/playlists/:playlistId',
    {
      onRequest: bearer,
      schema: { operationId: 'PLS-6', summary: 'Delete a playlist', tags, security: bearerAuth, params: PlaylistParams, response: { 204: z.null() } },
    },
    async (request, reply) => {
      await edits.delete(request.params.playlistId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/playlists/:playlistId/cover',
    {
      onRequest: bearer,
      schema: { operationId: 'PLS-7', summary: 'Delete playlist cover', tags, security: bearerAuth, params: PlaylistParams, response: { 204: z.null() } },
    },
    async (request, reply) => {
      await edits.deleteCover(request.params.playlistId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/playlists/:playlistId/tracks',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-8',
        summary: 'Add track to playlist',
        tags,
        security: bearerAuth,
        params: PlaylistParams,
        querystring: AddTrackQuery,
        body: AddTrackBody,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => {
      const trackId = request.query.trackId ?? request.body?.trackId;
      if (!trackId) throw AppError.validation([{ field: 'trackId', message: 'trackId is required (query or body)' }]);
      return edits.addTrack(request.params.playlistId, trackId, requireCaller(request));
    },
  );

  app.delete(
    '/playlists/:playlistId/tracks/:trackId',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-9',
        summary: 'Remove track from playlist',
        tags,
        security: bearerAuth,
        params: PlaylistTrackParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await edits.removeTrack(request.params.playlistId, request.params.trackId, requireCaller(request));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/playlists/:playlistId/tracks/reorder',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-10',
        summary: 'Reorder tracks inside a playlist',
        tags,
        security: bearerAuth,
        params: PlaylistParams,
        body: ReorderBody,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => edits.reorder(request.params.playlistId, request.body, requireCaller(request)),
  );

  app.get(
    '/playlists/:playlistId/tracks',
    {
      schema: {
        operationId: 'PLS-11',
        summary: 'Playlist tracks (additional)',
        tags,
        params: PlaylistParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(TrackSummarySchema) },
      },
    },
    async (request) => playlists.tracks(request.params.playlistId, callerFrom(request), request.query),
  );

  app.get(
    '/playlists/:playlistId/secret-link',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-12',
        summary: 'Get playlist secret link',
        tags,
        security: bearerAuth,
        params: PlaylistParams,
        response: { 200: PlaylistSecretLinkSchema },
      },
    },
    async (request) => playlists.getSecretLink(request.params.playlistId, requireCaller(request)),
  );

  app.post(
    '/playlists/:playlistId/secret-link/regenerate',
    {
      onRequest: bearer,
      schema: {
        operationId: 'PLS-13',
        summary: 'Regenerate secret link',
        tags,
        security: bearerAuth,
        params: PlaylistParams,
        response: { 200: PlaylistSecretLinkSchema },
      },
    },
    async (request) => playlists.regenerateSecretLink(request.params.playlistId, requireCaller(request)),
  );

  app.get(
    '/playlists/:playlistId/embed',
    { schema: { operationId: 'PLS-15', summary: 'HTML iframe embed code for a playlist', tags, params: PlaylistParams, response: { 200: EmbedCodeSchema } } },
    async (request) => playlists.embed(request.params.playlistId, callerFrom(request)),
  );

  app.get(
    '/users/:username/playlists/:playlistId',
    {
      schema: {
        operationId: 'PLS-17',
        summary: 'Playlists of a specific user with tracks',
        tags,
        params: UserPlaylistParams,
        querystring: PageQuerySchema,
        response: { 200: PlaylistSchema },
      },
    },
    async (request) => playlists.getOfUser(userRef(request.params.username), request.params.playlistId, callerFrom(request), request.query),
  );

  app.get(
    '/users/:username/playlists',
    {
      schema: {
        operationId: 'USR-19',
        summary: 'Public playlists created by a user',
        tags: ['Users'],
        params: UserParams,
        querystring: PageQuerySchema,
        response: { 200: PlaylistPage },
      },
    },
    async (request) => playlists.listByUser(userRef(request.params.username), callerFrom(request), request.query),
  );
};

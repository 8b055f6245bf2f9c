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
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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

  app.route({
    ...operation('PLS-1'),
    schema: { querystring: PageQuerySchema, response: { 200: PlaylistPage } },
    handler: async (request) => playlists.listOwn(requireCaller(request), request.query),
  });

  app.route({
    ...operation('PLS-2'),
    schema: { params: PlaylistParams, querystring: PageQuerySchema, response: { 200: PlaylistSchema } },
    handler: async (request) => playlists.getOwn(request.params.playlistId, requireCaller(request), request.query),
  });

  app.route({
    ...operation('PLS-3'),
    schema: { consumes: ['application/json', 'multipart/form-data'], response: { 201: PlaylistSchema } },
    handler: async (request, reply) => {
      const caller = requireCaller(request);
      const { fields, cover } = await readPlaylistInput(request, inputOptions(false));
      return reply.code(201).send(await edits.create(caller, fields, cover, String(request.id)));
    },
  });

  app.route({
    ...operation('PLS-16'),
    schema: { querystring: ResolveQuery, response: { 200: ResolveResultSchema } },
    handler: async (request) => playlists.resolve(request.query.playlistSlug, callerFrom(request)),
  });

  app.route({
    ...operation('PLS-14'),
    schema: { params: TokenParams, querystring: PageQuerySchema, response: { 200: PlaylistSchema } },
    handler: async (request) => playlists.byToken(request.params.token, callerFrom(request), request.query),
  });

  app.route({
    ...operation('PLS-4'),
    schema: { params: PlaylistParams, querystring: PageQuerySchema, response: { 200: PlaylistSchema } },
    handler: async (request) => playlists.get(request.params.playlistId, callerFrom(request), request.query),
  });

  app.route({
    ...operation('PLS-5'),
    schema: { consumes: ['application/json', 'multipart/form-data'], params: PlaylistParams, response: { 200: PlaylistSchema } },
    handler: async (request) => {
      const caller = requireCaller(request);
      const { fields, cover } = await readPlaylistInput(request, inputOptions(true));
      return edits.update(request.params.playlistId, caller, fields, cover, String(request.id));
    },
  });

  app.route({
    ...operation('PLS-6'),
    schema: { params: PlaylistParams, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await edits.delete(request.params.playlistId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('PLS-7'),
    schema: { params: PlaylistParams, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await edits.deleteCover(request.params.playlistId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('PLS-8'),
    schema: { params: PlaylistParams, querystring: AddTrackQuery, body: AddTrackBody, response: { 200: PlaylistSchema } },
    handler: async (request) => {
      const trackId = request.query.trackId ?? request.body?.trackId;
      if (!trackId) throw AppError.validation([{ field: 'trackId', message: 'trackId is required (query or body)' }]);
      return edits.addTrack(request.params.playlistId, trackId, requireCaller(request));
    },
  });

  app.route({
    ...operation('PLS-9'),
    schema: { params: PlaylistTrackParams, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await edits.removeTrack(request.params.playlistId, request.params.trackId, requireCaller(request));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('PLS-10'),
    schema: { params: PlaylistParams, body: ReorderBody, response: { 200: PlaylistSchema } },
    handler: async (request) => edits.reorder(request.params.playlistId, request.body, requireCaller(request)),
  });

  app.route({
    ...operation('PLS-11'),
    schema: { params: PlaylistParams, querystring: PageQuerySchema, response: { 200: pageSchema(TrackSummarySchema) } },
    handler: async (request) => playlists.tracks(request.params.playlistId, callerFrom(request), request.query),
  });

  app.route({
    ...operation('PLS-12'),
    schema: { params: PlaylistParams, response: { 200: PlaylistSecretLinkSchema } },
    handler: async (request) => playlists.getSecretLink(request.params.playlistId, requireCaller(request)),
  });

  app.route({
    ...operation('PLS-13'),
    schema: { params: PlaylistParams, response: { 200: PlaylistSecretLinkSchema } },
    handler: async (request) => playlists.regenerateSecretLink(request.params.playlistId, requireCaller(request)),
  });

  app.route({
    ...operation('PLS-15'),
    schema: { params: PlaylistParams, response: { 200: EmbedCodeSchema } },
    handler: async (request) => playlists.embed(request.params.playlistId, callerFrom(request)),
  });

  app.route({
    ...operation('PLS-17'),
    schema: { params: UserPlaylistParams, querystring: PageQuerySchema, response: { 200: PlaylistSchema } },
    handler: async (request) => playlists.getOfUser(userRef(request.params.username), request.params.playlistId, callerFrom(request), request.query),
  });

  app.route({
    ...operation('USR-19'),
    schema: { params: UserParams, querystring: PageQuerySchema, response: { 200: PlaylistPage } },
    handler: async (request) => playlists.listByUser(userRef(request.params.username), callerFrom(request), request.query),
  });
};

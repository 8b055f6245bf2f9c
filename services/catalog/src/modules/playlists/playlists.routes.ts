import multipart from '@fastify/multipart';
import { MAX_ID } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { readPlaylistInput } from './playlist-input.js';
import type { PlaylistEditsService } from './playlist-edits.service.js';
import type { PlaylistsService } from './playlists.service.js';

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

/** PLS-1…PLS-17 and USR-19, registered from their contract (packages/contracts/src/operations/catalog/playlists.ts). */
export const playlistsModule: FastifyPluginAsyncZod<PlaylistsModuleOptions> = async (app, { playlists, edits, storage, coverMaxBytes, publicBaseUrl }) => {
  await app.register(multipart);
  const inputOptions = (partial: boolean) => ({ partial, coverMaxBytes, storage, publicBaseUrl });

  app.route({
    ...operation('PLS-1'),
    handler: async (request) => playlists.listOwn(requireCaller(request), request.query),
  });

  app.route({
    ...operation('PLS-2'),
    handler: async (request) => playlists.getOwn(request.params.playlistId, requireCaller(request), request.query),
  });

  app.route({
    ...operation('PLS-3'),
    handler: async (request, reply) => {
      const caller = requireCaller(request);
      const { fields, cover } = await readPlaylistInput(request, inputOptions(false));
      return reply.code(201).send(await edits.create(caller, fields, cover, String(request.id)));
    },
  });

  app.route({
    ...operation('PLS-16'),
    handler: async (request) => playlists.resolve(request.query.playlistSlug, callerFrom(request)),
  });

  app.route({
    ...operation('PLS-14'),
    handler: async (request) => playlists.byToken(request.params.token, callerFrom(request), request.query),
  });

  app.route({
    ...operation('PLS-4'),
    handler: async (request) => playlists.get(request.params.playlistId, callerFrom(request), request.query),
  });

  app.route({
    ...operation('PLS-5'),
    handler: async (request) => {
      const caller = requireCaller(request);
      const { fields, cover } = await readPlaylistInput(request, inputOptions(true));
      return edits.update(request.params.playlistId, caller, fields, cover, String(request.id));
    },
  });

  app.route({
    ...operation('PLS-6'),
    handler: async (request, reply) => {
      await edits.delete(request.params.playlistId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('PLS-7'),
    handler: async (request, reply) => {
      await edits.deleteCover(request.params.playlistId, requireCaller(request), String(request.id));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('PLS-8'),
    handler: async (request) => {
      const trackId = request.query.trackId ?? request.body?.trackId;
      if (!trackId) throw AppError.validation([{ field: 'trackId', message: 'trackId is required (query or body)' }]);
      return edits.addTrack(request.params.playlistId, trackId, requireCaller(request));
    },
  });

  app.route({
    ...operation('PLS-9'),
    handler: async (request, reply) => {
      await edits.removeTrack(request.params.playlistId, request.params.trackId, requireCaller(request));
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...operation('PLS-10'),
    handler: async (request) => edits.reorder(request.params.playlistId, request.body, requireCaller(request)),
  });

  app.route({
    ...operation('PLS-11'),
    handler: async (request) => playlists.tracks(request.params.playlistId, callerFrom(request), request.query),
  });

  app.route({
    ...operation('PLS-12'),
    handler: async (request) => playlists.getSecretLink(request.params.playlistId, requireCaller(request)),
  });

  app.route({
    ...operation('PLS-13'),
    handler: async (request) => playlists.regenerateSecretLink(request.params.playlistId, requireCaller(request)),
  });

  app.route({
    ...operation('PLS-15'),
    handler: async (request) => playlists.embed(request.params.playlistId, callerFrom(request)),
  });

  app.route({
    ...operation('PLS-17'),
    handler: async (request) => playlists.getOfUser(userRef(request.params.username), request.params.playlistId, callerFrom(request), request.query),
  });

  app.route({
    ...operation('USR-19'),
    handler: async (request) => playlists.listByUser(userRef(request.params.username), callerFrom(request), request.query),
  });
};

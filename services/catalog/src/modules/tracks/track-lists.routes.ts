import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { IdParamSchema, MAX_ID, pageSchema, PageQuerySchema, TrackSchema, TrackStateSchema } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { TrackReadsService } from './track-reads.service.js';

const OwnTracksQuerySchema = PageQuerySchema.extend({ state: TrackStateSchema.optional() });
const UserParams = IdParamSchema('userId');

/** R1: `/users/{userId}/…` also accepts a username (never all digits). */
const UserRefParams = z.object({ userId: z.string().min(1).max(100) });
const UsernameParams = z.object({ username: z.string().min(1).max(100) });

const bearerAuth = [{ bearerAuth: [] }];

/** Bearer routes answer 401 before looking at the request's parameters. */
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

/** Pages of tracks: an artist's (TRK-21, TRK-22, TRK-23, USR-18) and the caller's history (USR-17). */
export const trackListsModule: FastifyPluginAsyncZod<{ reads: TrackReadsService }> = async (app, { reads }) => {
  app.get(
    '/users/me/tracks',
    {
      onRequest: bearer,
      schema: {
        operationId: 'TRK-21',
        summary: 'Tracks of the current user',
        tags: ['Tracks'],
        security: bearerAuth,
        querystring: OwnTracksQuerySchema,
        response: { 200: pageSchema(TrackSchema) },
      },
    },
    async (request) => reads.listOwn(requireCaller(request), request.query),
  );

  app.get(
    '/users/username/:username/tracks',
    {
      schema: {
        operationId: 'TRK-22',
        summary: 'Tracks of another user',
        tags: ['Tracks'],
        params: UsernameParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(TrackSchema) },
      },
    },
    async (request) => reads.listByUser({ username: request.params.username.toLowerCase() }, callerFrom(request), request.query),
  );

  app.get(
    '/tracks/user/:userId',
    {
      schema: {
        operationId: 'TRK-23',
        summary: 'Tracks of another user',
        deprecated: true,
        tags: ['Tracks'],
        params: UserParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(TrackSchema) },
      },
    },
    async (request) => reads.listByUser({ userId: request.params.userId }, callerFrom(request), request.query),
  );

  app.get(
    '/users/:userId/tracks',
    {
      schema: {
        operationId: 'USR-18',
        summary: 'Tracks uploaded by a user',
        tags: ['Users'],
        params: UserRefParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(TrackSchema) },
      },
    },
    async (request) => reads.listByUser(userRef(request.params.userId), callerFrom(request), request.query),
  );

  app.get(
    '/users/me/history',
    {
      onRequest: bearer,
      schema: {
        operationId: 'USR-17',
        summary: 'User listening history',
        tags: ['Users'],
        security: bearerAuth,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(TrackSchema) },
      },
    },
    async (request) => reads.history(requireCaller(request), request.query),
  );
};

import { z } from 'zod';
import { IdParamSchema, MAX_ID, pageSchema, PageQuerySchema, TrackSchema, TrackStateSchema } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { TrackReadsService } from './track-reads.service.js';

const OwnTracksQuerySchema = PageQuerySchema.extend({ state: TrackStateSchema.optional() });
const UserParams = IdParamSchema('userId');

/** R1: `/users/{userId}/…` also accepts a username (never all digits). */
const UserRefParams = z.object({ userId: z.string().min(1).max(100) });
const UsernameParams = z.object({ username: z.string().min(1).max(100) });

function userRef(value: string): { userId?: number; username?: string } {
  if (!/^\d+$/.test(value)) return { username: value.toLowerCase() };
  // An all-digit reference is an id; past the int4 range no such user can exist (never a 500).
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id > MAX_ID) throw new AppError('USER_NOT_FOUND', 'No such user.');
  return { userId: id };
}

/** Pages of tracks: an artist's (TRK-21, TRK-22, TRK-23, USR-18) and the caller's history (USR-17). */
export const trackListsModule: FastifyPluginAsyncZod<{ reads: TrackReadsService }> = async (app, { reads }) => {
  app.route({
    ...operation('TRK-21'),
    schema: { querystring: OwnTracksQuerySchema, response: { 200: pageSchema(TrackSchema) } },
    handler: async (request) => reads.listOwn(requireCaller(request), request.query),
  });

  app.route({
    ...operation('TRK-22'),
    schema: { params: UsernameParams, querystring: PageQuerySchema, response: { 200: pageSchema(TrackSchema) } },
    handler: async (request) => reads.listByUser({ username: request.params.username.toLowerCase() }, callerFrom(request), request.query),
  });

  app.route({
    ...operation('TRK-23'),
    schema: { params: UserParams, querystring: PageQuerySchema, response: { 200: pageSchema(TrackSchema) } },
    handler: async (request) => reads.listByUser({ userId: request.params.userId }, callerFrom(request), request.query),
  });

  app.route({
    ...operation('USR-18'),
    schema: { params: UserRefParams, querystring: PageQuerySchema, response: { 200: pageSchema(TrackSchema) } },
    handler: async (request) => reads.listByUser(userRef(request.params.userId), callerFrom(request), request.query),
  });

  app.route({
    ...operation('USR-17'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(TrackSchema) } },
    handler: async (request) => reads.history(requireCaller(request), request.query),
  });
};

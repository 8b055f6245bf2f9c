import { MAX_ID } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { TrackReadsService } from './track-reads.service.js';

/** R1: `/users/{userId}/…` also accepts a username (never all digits). */
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
    handler: async (request) => reads.listOwn(requireCaller(request), request.query),
  });

  app.route({
    ...operation('TRK-22'),
    handler: async (request) => reads.listByUser({ username: request.params.username.toLowerCase() }, callerFrom(request), request.query),
  });

  app.route({
    ...operation('TRK-23'),
    handler: async (request) => reads.listByUser({ userId: request.params.userId }, callerFrom(request), request.query),
  });

  app.route({
    ...operation('USR-18'),
    handler: async (request) => reads.listByUser(userRef(request.params.userId), callerFrom(request), request.query),
  });

  app.route({
    ...operation('USR-17'),
    handler: async (request) => reads.history(requireCaller(request), request.query),
  });
};

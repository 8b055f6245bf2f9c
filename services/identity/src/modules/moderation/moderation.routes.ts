import { operation, requireAdmin, type FastifyPluginAsyncZod } from '@msp/http';
import type { ModerationService } from './moderation.service.js';

/** MOD-8…MOD-10, registered from their contract (packages/contracts/src/operations/identity/moderation.ts). */
export const moderationModule: FastifyPluginAsyncZod<{ moderation: ModerationService }> = async (app, { moderation }) => {
  app.route({
    ...operation('MOD-8'),
    handler: async (request) => moderation.setBan(request.params.userId, request.body.isBanned, request.body.reason || null, String(request.id)),
  });

  app.route({
    ...operation('MOD-9'),
    handler: async (request) => moderation.suspend(request.params.userId, request.body.durationDays, request.body.reason || null, String(request.id)),
  });

  app.route({
    ...operation('MOD-10'),
    handler: async (request) => {
      // The contract's admin check is not added to the automatic HEAD twin of a GET: keep the handler's own.
      requireAdmin(request);
      return moderation.banned(request.query.page, request.query.size);
    },
  });
};

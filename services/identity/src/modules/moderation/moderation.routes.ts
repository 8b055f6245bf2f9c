import { z } from 'zod';
import { BannedUserSchema, IdParamSchema, MessageResponseSchema, PageQuerySchema, pageSchema, SuspensionResultSchema } from '@msp/contracts';
import { operation, requireAdmin, type FastifyPluginAsyncZod } from '@msp/http';
import type { ModerationService } from './moderation.service.js';

const BanBodySchema = z.object({ isBanned: z.boolean(), reason: z.string().trim().max(1000).optional().nullable() });
const SuspendBodySchema = z.object({
  durationDays: z.number().int().min(0).max(365),
  reason: z.string().trim().max(1000).optional().nullable(),
});

/** MOD-8…MOD-10, registered from their contract (method, path, admin rule: packages/contracts). */
export const moderationModule: FastifyPluginAsyncZod<{ moderation: ModerationService }> = async (app, { moderation }) => {
  app.route({
    ...operation('MOD-8'),
    schema: { params: IdParamSchema('userId'), body: BanBodySchema, response: { 200: MessageResponseSchema } },
    handler: async (request) => moderation.setBan(request.params.userId, request.body.isBanned, request.body.reason || null, String(request.id)),
  });

  app.route({
    ...operation('MOD-9'),
    schema: { params: IdParamSchema('userId'), body: SuspendBodySchema, response: { 200: SuspensionResultSchema } },
    handler: async (request) => moderation.suspend(request.params.userId, request.body.durationDays, request.body.reason || null, String(request.id)),
  });

  app.route({
    ...operation('MOD-10'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(BannedUserSchema) } },
    handler: async (request) => {
      // The contract's admin check is not added to the automatic HEAD twin of a GET: keep the handler's own.
      requireAdmin(request);
      return moderation.banned(request.query.page, request.query.size);
    },
  });
};

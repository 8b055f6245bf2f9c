import { z } from 'zod';
import { BannedUserSchema, IdParamSchema, MessageResponseSchema, PageQuerySchema, pageSchema, SuspensionResultSchema } from '@msp/contracts';
import { requireAdmin, type FastifyPluginAsyncZod } from '@msp/http';
import type { ModerationService } from './moderation.service.js';

const admin = [{ bearerAuth: [] }];

const BanBodySchema = z.object({ isBanned: z.boolean(), reason: z.string().trim().max(1000).optional().nullable() });
const SuspendBodySchema = z.object({
  durationDays: z.number().int().min(0).max(365),
  reason: z.string().trim().max(1000).optional().nullable(),
});

export const moderationModule: FastifyPluginAsyncZod<{ moderation: ModerationService }> = async (app, { moderation }) => {
  app.patch(
    '/admin/users/:userId/ban',
    {
      schema: {
        operationId: 'MOD-8',
        summary: 'Ban a user',
        tags: ['Moderation'],
        security: admin,
        params: IdParamSchema('userId'),
        body: BanBodySchema,
        response: { 200: MessageResponseSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return moderation.setBan(request.params.userId, request.body.isBanned, request.body.reason || null, String(request.id));
    },
  );

  app.patch(
    '/admin/users/:userId/suspend',
    {
      schema: {
        operationId: 'MOD-9',
        summary: 'Suspend a user',
        tags: ['Moderation'],
        security: admin,
        params: IdParamSchema('userId'),
        body: SuspendBodySchema,
        response: { 200: SuspensionResultSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return moderation.suspend(request.params.userId, request.body.durationDays, request.body.reason || null, String(request.id));
    },
  );

  app.get(
    '/admin/users/banned',
    {
      schema: {
        operationId: 'MOD-10',
        summary: 'Banned users',
        tags: ['Moderation'],
        security: admin,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(BannedUserSchema) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return moderation.banned(request.query.page, request.query.size);
    },
  );
};

import { z } from 'zod';
import { MessageResponseSchema, NotificationSchema, pageSchema, PageQuerySchema, UnreadCountSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { NotificationsService } from './notifications.service.js';

/** Query booleans are text: only "true" and "false" are accepted. */
const ListQuerySchema = PageQuerySchema.extend({
  unreadOnly: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

/** NOT-1…NOT-4, registered from their contract (bearer: the contract's check answers 401 before any validation). */
export const notificationsModule: FastifyPluginAsyncZod<{ notifications: NotificationsService }> = async (app, { notifications }) => {
  app.route({
    ...operation('NOT-1'),
    schema: { querystring: ListQuerySchema, response: { 200: pageSchema(NotificationSchema) } },
    handler: async (request) => notifications.list(requireCaller(request).userId, request.query.unreadOnly, request.query.page, request.query.size),
  });
  app.route({
    ...operation('NOT-2'),
    schema: { response: { 200: UnreadCountSchema } },
    handler: async (request) => notifications.unreadCount(requireCaller(request).userId),
  });
  app.route({
    ...operation('NOT-3'),
    schema: { response: { 200: UnreadCountSchema } },
    handler: async (request) => notifications.badgeCount(requireCaller(request).userId),
  });
  app.route({
    ...operation('NOT-4'),
    schema: { response: { 200: MessageResponseSchema } },
    handler: async (request) => notifications.markAllRead(requireCaller(request).userId),
  });
};

import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { NotificationsService } from './notifications.service.js';

/** NOT-1…NOT-4, registered from their contract (packages/contracts/src/operations/notification/notifications.ts; bearer: the contract's check answers 401 before any validation). */
export const notificationsModule: FastifyPluginAsyncZod<{ notifications: NotificationsService }> = async (app, { notifications }) => {
  app.route({
    ...operation('NOT-1'),
    handler: async (request) => notifications.list(requireCaller(request).userId, request.query.unreadOnly, request.query.page, request.query.size),
  });
  app.route({
    ...operation('NOT-2'),
    handler: async (request) => notifications.unreadCount(requireCaller(request).userId),
  });
  app.route({
    ...operation('NOT-3'),
    handler: async (request) => notifications.badgeCount(requireCaller(request).userId),
  });
  app.route({
    ...operation('NOT-4'),
    handler: async (request) => notifications.markAllRead(requireCaller(request).userId),
  });
};

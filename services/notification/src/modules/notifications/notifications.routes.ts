import { UnreadCountSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { NotificationsService } from './notifications.service.js';

export const notificationsModule: FastifyPluginAsyncZod<{ notifications: NotificationsService }> = async (app, { notifications }) => {
  app.get(
    '/notifications/unread-count',
    {
      schema: { operationId: 'NOT-2', summary: 'Unread count', tags: ['Notifications'], response: { 200: UnreadCountSchema } },
    },
    async (request) => notifications.unreadCount(requireCaller(request).userId),
  );
};

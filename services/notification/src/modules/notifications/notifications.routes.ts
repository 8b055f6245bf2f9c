import { z } from 'zod';
import { MessageResponseSchema, NotificationSchema, pageSchema, PageQuerySchema, UnreadCountSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { NotificationsService } from './notifications.service.js';

/** Query booleans are text: only "true" and "false" are accepted. */
const ListQuerySchema = PageQuerySchema.extend({
  unreadOnly: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

const bearer = {
  onRequest: async (request: Parameters<typeof requireCaller>[0]) => {
    requireCaller(request);
  },
};

export const notificationsModule: FastifyPluginAsyncZod<{ notifications: NotificationsService }> = async (app, { notifications }) => {
  app.get(
    '/notifications',
    {
      schema: {
        operationId: 'NOT-1',
        summary: 'List notifications',
        tags: ['Notifications'],
        querystring: ListQuerySchema,
        response: { 200: pageSchema(NotificationSchema) },
      },
      ...bearer,
    },
    async (request) => notifications.list(requireCaller(request).userId, request.query.unreadOnly, request.query.page, request.query.size),
  );
  app.get(
    '/notifications/unread-count',
    {
      schema: { operationId: 'NOT-2', summary: 'Unread count', tags: ['Notifications'], response: { 200: UnreadCountSchema } },
      ...bearer,
    },
    async (request) => notifications.unreadCount(requireCaller(request).userId),
  );
  app.get(
    '/notifications/badge',
    {
      schema: { operationId: 'NOT-3', summary: 'Quick badge unread count', tags: ['Notifications'], response: { 200: UnreadCountSchema } },
      ...bearer,
    },
    async (request) => notifications.badgeCount(requireCaller(request).userId),
  );
  app.post(
    '/notifications/mark-all-read',
    {
      schema: { operationId: 'NOT-4', summary: 'Mark all unread as read', tags: ['Notifications'], response: { 200: MessageResponseSchema } },
      ...bearer,
    },
    async (request) => notifications.markAllRead(requireCaller(request).userId),
  );
};

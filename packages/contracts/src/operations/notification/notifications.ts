import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { MessageResponseSchema } from '../../records/common.js';
import { NotificationSchema, UnreadCountSchema } from '../../records/notifications.js';
import { pageSchema } from '../../records/page.js';
import { PageQuerySchema } from '../../records/request.js';

/** Query booleans are text: only "true" and "false" are accepted. */
const ListQuerySchema = PageQuerySchema.extend({
  unreadOnly: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

const unreadCount = { 200: UnreadCountSchema };

/** The operations of notification's notifications module (services/notification/src/modules/notifications): contract row, input and output. */
export const NOTIFICATION_NOTIFICATIONS = {
  'NOT-1': {
    method: 'GET',
    path: '/notifications',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'List notifications',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],

    // NOT: reading and settings; device tokens (push to the user's own devices) stay closed.
    scope: 'read',

    querystring: ListQuerySchema,
    response: { 200: pageSchema(NotificationSchema) },
  },
  'NOT-2': {
    method: 'GET',
    path: '/notifications/unread-count',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Unread count',
    errors: ['UNAUTHORIZED'],
    scope: 'read',

    response: unreadCount,
  },
  'NOT-3': {
    method: 'GET',
    path: '/notifications/badge',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Quick badge unread count',
    errors: ['UNAUTHORIZED'],
    scope: 'read',

    response: unreadCount,
  },
  'NOT-4': {
    method: 'POST',
    path: '/notifications/mark-all-read',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'json',
    summary: 'Mark all unread as read',
    errors: ['UNAUTHORIZED'],
    scope: 'write',

    response: { 200: MessageResponseSchema },
  },
} satisfies Operations;

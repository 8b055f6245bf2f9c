import type { Operations } from '../../operation-schema.js';
import { NotificationPreferencesSchema } from '../../records/notifications.js';

/** Strict booleans ("true" is refused); unknown fields are stripped, so ignored (docs/api.md "Conventions"). */
const body = NotificationPreferencesSchema.partial();
const response = { 200: NotificationPreferencesSchema };

/** The operations of notification's preferences module (services/notification/src/modules/preferences): contract row, input and output. */
export const NOTIFICATION_PREFERENCES = {
  'NOT-5': {
    method: 'GET',
    path: '/notifications/settings',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Get notification preferences',
    errors: ['UNAUTHORIZED'],
    scope: 'read',

    response,
  },
  'NOT-6': {
    method: 'PATCH',
    path: '/notifications/settings',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'json',
    summary: 'Update notification preferences',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED'],
    scope: 'write',

    body,
    response,
  },
} satisfies Operations;

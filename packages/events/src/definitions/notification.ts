import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/**
 * Events produced by the notification service (`notification.<aggregate>.<verb>.v<N>`). Definitions are added
 * with the features that publish them; changes are additive only.
 */

const Id = z.number().int().positive();

/**
 * A notification was stored (R15). Consumed by notification itself: one consumer sends it on WS-3,
 * another pushes it to the recipient's device tokens, so neither delays the other nor the cause.
 * `notification` is the Notification record (docs/api.md) as the recipient sees it.
 */
export const NotificationCreated = defineEvent(
  'notification.notification.created.v1',
  z.object({ recipientId: Id, notification: z.record(z.string(), z.unknown()), unreadCount: z.number().int().min(0) }),
);

/** NOT-4 marked the recipient's notifications read (WS-3 NOTIFICATIONS_READ). */
export const NotificationsRead = defineEvent('notification.notifications.read.v1', z.object({ recipientId: Id, unreadCount: z.number().int().min(0) }));

/**
 * Webhooks (docs/developer-platform.md): an app's endpoint failed for the whole retry window (3 days)
 * and was disabled; its owner is to be told.
 */
export const WebhookEndpointDisabled = defineEvent(
  'notification.webhook.disabled.v1',
  z.object({ webhookId: Id, appId: Id, ownerId: Id, url: z.string(), failingSince: z.string() }),
);

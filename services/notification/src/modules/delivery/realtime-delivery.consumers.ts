import type { FastifyBaseLogger } from 'fastify';
import { MessageSchema, NotificationSchema, type MessageEvent } from '@msp/contracts';
import { ConversationRead, DurableConsumer, MessageSent, NotificationCreated, NotificationsRead, type NatsConnection } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { RealtimeFanout } from '../realtime/realtime.fanout.js';
import type { BadgeCounter } from '../notifications/badge.counter.js';

interface Deps {
  nc: NatsConnection;
  prisma: PrismaClient;
  logger: FastifyBaseLogger;
  fanout: RealtimeFanout;
  badge: BadgeCounter;
}

/**
 * WS-4 from messaging's events: each participant gets their own rendering of a new message
 * (resources they may not see are null), and both get MESSAGES_READ. A consumer of its own, so
 * message delivery never waits behind notification work.
 */
function messagesRealtime(deps: Deps) {
  return new DurableConsumer({ nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification', name: 'messages-realtime', from: 'messaging' })
    .on(MessageSent, async (d, e) => {
      for (const userId of [d.senderId, d.recipientId]) {
        const message = MessageSchema.safeParse(d.renderings[String(userId)]);
        if (!message.success) {
          deps.logger.error({ eventId: e.id, userId }, 'message event lacks a valid rendering for a participant; not sent');
          continue;
        }
        const event: MessageEvent = { event: 'MESSAGE_CREATED', conversationId: d.conversationId, message: message.data, readerId: null, readAt: null };
        deps.fanout.sendMessageEvent([userId], event);
      }
    })
    .on(ConversationRead, async (d) => {
      deps.fanout.sendMessageEvent([d.readerId, d.partnerId], {
        event: 'MESSAGES_READ',
        conversationId: d.conversationId,
        message: null,
        readerId: d.readerId,
        readAt: d.readAt,
      });
    });
}

/** WS-3 from notification's own events, and the NOT-3 counter refreshed with the exact count they carry. */
function notificationsRealtime(deps: Deps) {
  return new DurableConsumer({
    nc: deps.nc,
    db: deps.prisma,
    logger: deps.logger,
    service: 'notification',
    name: 'notifications-realtime',
    from: 'notification',
  })
    .on(NotificationCreated, async (d, e) => {
      const notification = NotificationSchema.safeParse(d.notification);
      if (!notification.success) {
        deps.logger.error({ eventId: e.id }, 'notification event does not carry a Notification record; not sent');
        return;
      }
      await deps.badge.set(d.recipientId, d.unreadCount);
      deps.fanout.sendNotificationEvent(d.recipientId, { event: 'NOTIFICATION_CREATED', notification: notification.data, unreadCount: d.unreadCount });
    })
    .on(NotificationsRead, async (d) => {
      deps.fanout.sendNotificationEvent(d.recipientId, { event: 'NOTIFICATIONS_READ', notification: null, unreadCount: d.unreadCount });
    });
}

export async function startRealtimeDelivery(deps: Deps): Promise<Array<{ stop(): Promise<void> }>> {
  const consumers = [messagesRealtime(deps), notificationsRealtime(deps)];
  for (const c of consumers) await c.start();
  return consumers;
}

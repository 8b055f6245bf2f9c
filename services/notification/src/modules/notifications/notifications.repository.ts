import type { PrismaClient } from '../../generated/prisma/client.js';

export class NotificationsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Served by the (recipient_id, is_read) index. */
  countUnread(recipientId: number): Promise<number> {
    return this.prisma.notification.count({ where: { recipientId, isRead: false } });
  }
}

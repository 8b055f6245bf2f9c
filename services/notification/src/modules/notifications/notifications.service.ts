import { toPage, type MessageResponse, type Notification, type Page, type UnreadCount } from '@msp/contracts';
import { NotificationsRead, writeOutbox } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { BadgeCounter } from './badge.counter.js';
import { toNotification } from './notification.mapper.js';
import { NotificationsRepository } from './notifications.repository.js';

export class NotificationsService {
  readonly repo: NotificationsRepository;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly badge: BadgeCounter,
  ) {
    this.repo = new NotificationsRepository(prisma);
  }

  /** NOT-1: newest first; two queries whatever the page size. */
  async list(userId: number, unreadOnly: boolean, page: number, size: number): Promise<Page<Notification>> {
    const { rows, total } = await this.repo.page(userId, unreadOnly, page, size);
    return toPage(rows.map(toNotification), total, page, size);
  }

  /** NOT-2: exact, straight from the database. */
  async unreadCount(userId: number): Promise<UnreadCount> {
    return { unreadCount: await this.repo.countUnread(userId) };
  }

  /** NOT-3: the cached counter; on a miss (expired or never set) it is recomputed and cached. */
  async badgeCount(userId: number): Promise<UnreadCount> {
    const cached = await this.badge.get(userId);
    if (cached !== null) return { unreadCount: cached };
    const exact = await this.repo.countUnread(userId);
    await this.badge.set(userId, exact);
    return { unreadCount: exact };
  }

  /** NOT-4: everything read; WS-3 NOTIFICATIONS_READ follows through the outbox. */
  async markAllRead(userId: number): Promise<MessageResponse> {
    const unreadCount = await this.prisma.$transaction(async (tx) => {
      await this.repo.markAllRead(userId, tx);
      const left = await this.repo.countUnread(userId, tx);
      await writeOutbox(tx, NotificationsRead, { recipientId: userId, unreadCount: left });
      return left;
    });
    await this.badge.set(userId, unreadCount);
    return { message: 'All notifications are marked as read.' };
  }
}

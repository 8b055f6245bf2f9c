import { toPage, type MessageResponse, type Notification, type Page, type UnreadCount } from '@msp/contracts';
import type { BadgeCounter } from './badge.counter.js';
import { toNotification } from './notification.mapper.js';
import type { NotificationsStore } from './notifications.repository.js';

/** NOT-1…NOT-4. Collaborators are given (app.ts wires them), so a test can pass fakes. */
export class NotificationsService {
  constructor(
    private readonly repo: NotificationsStore,
    private readonly badge: Pick<BadgeCounter, 'get' | 'set'>,
  ) {}

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
    const unreadCount = await this.repo.markAllReadAndAnnounce(userId);
    await this.badge.set(userId, unreadCount);
    return { message: 'All notifications are marked as read.' };
  }
}

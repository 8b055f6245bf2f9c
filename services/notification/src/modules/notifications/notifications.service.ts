import type { UnreadCount } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { NotificationsRepository } from './notifications.repository.js';

export class NotificationsService {
  private readonly repo: NotificationsRepository;

  constructor(prisma: PrismaClient) {
    this.repo = new NotificationsRepository(prisma);
  }

  /** NOT-2: exact, straight from the database (NOT-3 will be the cached, lagging counter). */
  async unreadCount(userId: number): Promise<UnreadCount> {
    return { unreadCount: await this.repo.countUnread(userId) };
  }
}

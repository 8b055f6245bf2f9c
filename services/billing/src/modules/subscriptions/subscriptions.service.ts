import type { InternalSubscription, SubscriptionStatusResponse } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { toSubscriptionStatus } from './subscription-status.mapper.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';

export class SubscriptionsService {
  private readonly repo: SubscriptionsRepository;

  constructor(prisma: PrismaClient) {
    this.repo = new SubscriptionsRepository(prisma);
  }

  /** SUB-1. A user without a subscription row never subscribed. */
  async status(userId: number): Promise<SubscriptionStatusResponse> {
    return toSubscriptionStatus(await this.repo.findByUser(userId));
  }

  /** The stored subscription for other services, or null when the user never subscribed. */
  async internal(userId: number): Promise<InternalSubscription | null> {
    const row = await this.repo.findByUser(userId);
    if (!row) return null;
    return {
      userId,
      status: row.status,
      currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    };
  }
}

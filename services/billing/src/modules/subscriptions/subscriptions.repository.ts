import type { PrismaClient } from '../../generated/prisma/client.js';
import type { SubscriptionRow } from './subscription-status.mapper.js';

export class SubscriptionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findByUser(userId: number): Promise<SubscriptionRow | null> {
    return this.prisma.subscription.findUnique({
      where: { userId },
      select: { status: true, plan: true, currentPeriodEnd: true, cancelAtPeriodEnd: true },
    });
  }
}

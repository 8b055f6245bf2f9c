import { sql } from '@msp/db';
import type { Prisma, PrismaClient, SubscriptionStatus } from '../../generated/prisma/client.js';
import type { SubscriptionRow } from './subscription-status.mapper.js';

export type Db = PrismaClient | Prisma.TransactionClient;
/** The transaction handle a service passes back to the repository's methods. */
export type Tx = Prisma.TransactionClient;

/** The stored subscription with what applying provider state needs. */
export interface StoredSubscription extends SubscriptionRow {
  id: number;
  userId: number;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  lastEventAt: Date | null;
  tierVersion: number;
}

const STORED = {
  id: true,
  userId: true,
  providerCustomerId: true,
  providerSubscriptionId: true,
  status: true,
  plan: true,
  currentPeriodEnd: true,
  cancelAtPeriodEnd: true,
  lastEventAt: true,
  tierVersion: true,
} as const;

export interface SubscriptionWrite {
  providerCustomerId?: string | null;
  providerSubscriptionId?: string | null;
  status?: SubscriptionStatus;
  providerStatus?: string | null;
  currentPeriodEnd?: Date | null;
  cancelAtPeriodEnd?: boolean;
  lastEventAt?: Date | null;
  tierVersion?: number;
}

/** What SubscriptionSync needs of this repository (unit tests give fakes). */
export type SubscriptionStateStore = Pick<SubscriptionsRepository, 'findByUser' | 'userOfSubscription' | 'userOfCustomer' | 'lockUser' | 'create' | 'update'>;

/** What SubscriptionsService needs of this repository (unit tests give fakes). */
export type SubscriptionsStore = Pick<SubscriptionsRepository, 'transaction' | 'findByUser' | 'findCustomer' | 'replaceCustomer' | 'saveCustomer'>;

export class SubscriptionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One unit of work: the methods given `tx` commit or roll back together. */
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>, options?: { timeout?: number; maxWait?: number }): Promise<T> {
    return this.prisma.$transaction(work, options);
  }

  findByUser(userId: number, db: Db = this.prisma): Promise<StoredSubscription | null> {
    return db.subscription.findUnique({ where: { userId }, select: STORED });
  }

  async userOfSubscription(db: Db, providerSubscriptionId: string): Promise<number | null> {
    const row = await db.subscription.findUnique({ where: { providerSubscriptionId }, select: { userId: true } });
    return row?.userId ?? null;
  }

  /** The user of a provider customer: ours from SUB-2, or one linked by an earlier event. */
  async userOfCustomer(db: Db, providerCustomerId: string): Promise<number | null> {
    const customer = await db.billingCustomer.findUnique({ where: { providerCustomerId }, select: { userId: true } });
    if (customer) return customer.userId;
    const linked = await db.subscription.findFirst({ where: { providerCustomerId }, select: { userId: true }, orderBy: { updatedAt: 'desc' } });
    return linked?.userId ?? null;
  }

  /** Serialises every change of one user's subscription (webhook worker replicas, SUB-3/4). */
  async lockUser(db: Prisma.TransactionClient, userId: number): Promise<void> {
    await db.$executeRaw(sql`SELECT pg_advisory_xact_lock(hashtext('billing.subscription'), ${userId}::int)`);
  }

  async create(db: Db, userId: number, data: SubscriptionWrite & { status: SubscriptionStatus }): Promise<StoredSubscription> {
    return db.subscription.create({ data: { userId, plan: 'pro', ...data }, select: STORED });
  }

  async update(db: Db, userId: number, data: SubscriptionWrite): Promise<StoredSubscription> {
    // A subscription id moving to this user is released by any other row first (unique index).
    if (data.providerSubscriptionId) {
      await db.subscription.updateMany({
        where: { providerSubscriptionId: data.providerSubscriptionId, userId: { not: userId } },
        data: { providerSubscriptionId: null },
      });
    }
    return db.subscription.update({ where: { userId }, data, select: STORED });
  }

  findCustomer(userId: number): Promise<string | null> {
    return this.prisma.billingCustomer.findUnique({ where: { userId }, select: { providerCustomerId: true } }).then((r) => r?.providerCustomerId ?? null);
  }

  /** Swaps a customer that vanished at the provider for its replacement (only if still stored). */
  async replaceCustomer(userId: number, previous: string, replacement: string): Promise<void> {
    await this.prisma.billingCustomer.updateMany({ where: { userId, providerCustomerId: previous }, data: { providerCustomerId: replacement } });
  }

  /** Keeps the first customer stored for the user; answers the one that is stored. */
  async saveCustomer(userId: number, providerCustomerId: string): Promise<string> {
    await this.prisma.billingCustomer.createMany({ data: [{ userId, providerCustomerId }], skipDuplicates: true });
    return (await this.findCustomer(userId)) ?? providerCustomerId;
  }
}

import { sql } from '@msp/db';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

/** Provider events one statement looks at (in id order), whether or not they name the user. */
export const REDACT_SCAN = 2000;

/** What billing holds of a user: their subscription (if any) and the provider customers named for them. */
export interface BillingAccount {
  subscription: {
    providerSubscriptionId: string | null;
    providerCustomerId: string | null;
    plan: 'free' | 'pro';
    currentPeriodEnd: Date | null;
    createdAt: Date;
  } | null;
  customerIds: string[];
}

/**
 * ACC-5 in billing (docs/account-control.md). Persistence of the account deletion: the user's
 * subscription becomes an anonymous `retained_billing_records` row (legal retention), their
 * subscription and customer rows go, and the provider events about them keep only their id and
 * type (the payloads hold the customer's details).
 */
export class BillingDeletionRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async accountOf(userId: number): Promise<BillingAccount> {
    const [subscription, customer] = await Promise.all([
      this.prisma.subscription.findUnique({
        where: { userId },
        select: { providerSubscriptionId: true, providerCustomerId: true, plan: true, currentPeriodEnd: true, createdAt: true },
      }),
      this.prisma.billingCustomer.findUnique({ where: { userId }, select: { providerCustomerId: true } }),
    ]);
    const customerIds = [...new Set([customer?.providerCustomerId, subscription?.providerCustomerId].filter((id): id is string => !!id))];
    return { subscription, customerIds };
  }

  /**
   * One transaction, under the user's subscription lock (the webhook worker's and SUB-3/4's):
   * the retained record (once per provider subscription), then the user's rows.
   */
  async retire(userId: number, account: BillingAccount): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw(sql`SELECT pg_advisory_xact_lock(hashtext('billing.subscription'), ${userId}::int)`);
      const s = account.subscription;
      if (s) {
        await tx.retainedBillingRecord.createMany({
          data: [
            {
              providerSubscriptionId: s.providerSubscriptionId,
              providerCustomerId: s.providerCustomerId ?? account.customerIds[0] ?? null,
              plan: s.plan,
              status: 'cancelled',
              currentPeriodEnd: s.currentPeriodEnd,
              subscribedAt: s.createdAt,
            },
          ],
          skipDuplicates: true,
        });
      }
      await tx.subscription.deleteMany({ where: { userId } });
      await tx.billingCustomer.deleteMany({ where: { userId } });
    });
  }

  /**
   * One batch of the provider events naming the user (metadata, checkout reference), one of
   * their customers or their subscription: the payload is reduced to `{id, type, redacted}` and
   * an unprocessed one is settled as ignored (the account is gone). Looks at the REDACT_SCAN
   * events after `afterId` (a keyset on the primary key: one pass over the inbox, not a scan of
   * the whole table per batch). Answers how many changed and the last id looked at (null at the end).
   */
  async redactEventsBatch(
    userId: number,
    customerIds: string[],
    subscriptionIds: string[],
    afterId: string | undefined,
  ): Promise<{ removed: number; next: string | null }> {
    const [row] = await this.prisma.$queryRaw<Array<{ scanned: number; last: string | null; changed: number }>>(
      sql`WITH s AS (SELECT id, payload FROM provider_events WHERE id > ${afterId ?? ''} ORDER BY id LIMIT ${REDACT_SCAN}),
            u AS (
              UPDATE provider_events e
                 SET payload = jsonb_build_object('id', e.payload->'id', 'type', e.payload->'type', 'redacted', true),
                     processed_at = coalesce(e.processed_at, now()), outcome = coalesce(e.outcome, 'ignored')
                FROM s
               WHERE e.id = s.id AND NOT (s.payload ? 'redacted')
                 AND (s.payload->'data'->'object'->'metadata'->>'userId' = ${userId}::int::text
                      OR s.payload->'data'->'object'->>'client_reference_id' = ${userId}::int::text
                      OR s.payload->'data'->'object'->>'customer' = ANY(${customerIds}::text[])
                      OR s.payload->'data'->'object'->>'id' = ANY(${subscriptionIds}::text[]) OR s.payload->'data'->'object'->>'id' = ANY(${customerIds}::text[])
                      OR s.payload->'data'->'object'->>'subscription' = ANY(${subscriptionIds}::text[])
                      OR s.payload->'data'->'object'->'parent'->'subscription_details'->>'subscription' = ANY(${subscriptionIds}::text[]))
              RETURNING 1)
       SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(id) FROM s) AS last, (SELECT count(*)::int FROM u) AS changed`,
    );
    return { removed: row?.changed ?? 0, next: row && row.scanned === REDACT_SCAN ? row.last : null };
  }

  /** A provider subscription or customer of a deleted account: its later events are ignored. */
  async isRetired(db: Prisma.TransactionClient | PrismaClient, ids: { subscriptionId: string | null; customerId: string | null }): Promise<boolean> {
    const or = [
      ...(ids.subscriptionId ? [{ providerSubscriptionId: ids.subscriptionId }] : []),
      ...(ids.customerId ? [{ providerCustomerId: ids.customerId }] : []),
    ];
    if (or.length === 0) return false;
    return (await db.retainedBillingRecord.count({ where: { OR: or } })) > 0;
  }
}

import type { FastifyBaseLogger } from 'fastify';
import {
  DurableConsumer,
  SubscriptionTierChanged,
  UserTierChanged,
  writeOutbox,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';

/**
 * R17: billing decides the tier from the subscription; identity stores it (the next AUTH-2 token
 * carries it) and tells the fleet with identity.user.tier-changed.v1 (catalog's quota, R12, and
 * every user summary follow). Billing's version orders the changes: a redelivered older one is
 * skipped.
 */
export async function startBillingTierConsumer<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'identity', name: 'billing-tier', from: 'billing' }).on(
    SubscriptionTierChanged,
    async (d, envelope, tx) => {
      const rows = await tx.$queryRawUnsafe<Array<{ tier: string; billing_tier_version: number }>>(
        'SELECT tier::text AS tier, billing_tier_version FROM users WHERE id = $1 FOR UPDATE',
        d.userId,
      );
      const user = rows[0];
      if (!user || user.billing_tier_version >= d.version) return;
      await tx.$executeRawUnsafe(
        `UPDATE users SET tier = $2::"Tier", billing_tier_version = $3, updated_at = now() WHERE id = $1`,
        d.userId,
        d.tier,
        d.version,
      );
      if (user.tier !== d.tier) {
        await writeOutbox(tx, UserTierChanged, { userId: d.userId, tier: d.tier }, { correlationId: envelope.correlationId ?? envelope.id });
      }
    },
  );
  await consumer.start();
  return consumer;
}

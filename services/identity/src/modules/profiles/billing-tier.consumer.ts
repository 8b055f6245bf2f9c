import {
  DurableConsumer,
  SubscriptionTierChanged,
  UserTierChanged,
  writeOutbox,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import type { Logger } from '@msp/runtime';
import { profileStatsRepository as stats } from './profile-stats.repository.js';

/**
 * R17: billing decides the tier from the subscription; identity stores it (the next AUTH-2 token
 * carries it) and tells the fleet with identity.user.tier-changed.v1 (catalog's quota, R12, and
 * every user summary follow). Billing's version orders the changes: a redelivered older one is
 * skipped.
 */
export async function startBillingTierConsumer<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'identity', name: 'billing-tier', from: 'billing' }).on(
    SubscriptionTierChanged,
    async (d, envelope, tx) => {
      const user = await stats.lockTier(tx, d.userId);
      if (!user || user.billingTierVersion >= d.version) return;
      await stats.setTier(tx, d.userId, d.tier, d.version);
      if (user.tier !== d.tier) {
        await writeOutbox(tx, UserTierChanged, { userId: d.userId, tier: d.tier }, { correlationId: envelope.correlationId ?? envelope.id });
      }
    },
  );
  await consumer.start();
  return consumer;
}

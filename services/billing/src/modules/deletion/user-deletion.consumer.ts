import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserDeleted, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { removeInBatches } from '@msp/runtime';
import type { StripeClient } from '../payments/stripe.client.js';
import type { BillingDeletionRepository } from './user-deletion.repository.js';

/**
 * ACC-5 in billing, the durable `billing--user-deletion` consumer of identity's UserDeleted:
 * cancels the provider subscription at once and deletes the provider customer (the provider
 * keeps its invoices), redacts the provider events about the user, keeps the subscription as an
 * anonymous retained record and removes the user's rows (BillingDeletionRepository). Outside a
 * transaction (provider calls; onLongRunning): a provider failure throws, the event is retried
 * with backoff, and every step converges when repeated (restart-safe).
 */
export async function startUserDeletion<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
  stripe: Pick<StripeClient, 'cancelNow' | 'deleteCustomer'>;
  repo: BillingDeletionRepository;
}): Promise<DurableConsumer<Tx>> {
  const { stripe, repo } = options;
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'billing', name: 'user-deletion', from: 'identity' }).onLongRunning(
    UserDeleted,
    async ({ userId }) => {
      const account = await repo.accountOf(userId);
      const subscriptionIds = account.subscription?.providerSubscriptionId ? [account.subscription.providerSubscriptionId] : [];
      for (const id of subscriptionIds) await stripe.cancelNow(id);
      for (const id of account.customerIds) await stripe.deleteCustomer(id);
      const redact = () =>
        removeInBatches<string>((after) => repo.redactEventsBatch(userId, account.customerIds, subscriptionIds, after), {
          name: 'billing.provider_events',
          logger: options.logger,
          context: { userId },
        });
      await redact();
      await repo.retire(userId, account);
      // Events stored while the rows went (the provider's answer to the cancellation, say).
      await redact();
    },
  );
  await consumer.start();
  return consumer;
}

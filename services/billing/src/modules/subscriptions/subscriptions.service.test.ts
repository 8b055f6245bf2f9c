import { describe, expect, it } from 'vitest';
import type { Prisma } from '../../generated/prisma/client.js';
import { MissingCustomerError } from '../payments/provider-errors.js';
import type { StripeClient } from '../payments/stripe.client.js';
import type { SubscriptionSync } from './subscription-sync.service.js';
import type { StoredSubscription, SubscriptionsStore } from './subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions.service.js';

const USER = 12;
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

const stored = (overrides: Partial<StoredSubscription> = {}): StoredSubscription => ({
  id: 1,
  userId: USER,
  providerCustomerId: 'cus_1',
  providerSubscriptionId: 'sub_1',
  status: 'active',
  plan: 'pro',
  currentPeriodEnd: inDays(10),
  cancelAtPeriodEnd: false,
  lastEventAt: new Date(),
  tierVersion: 1,
  ...overrides,
});

type ProviderSubscription = Awaited<ReturnType<StripeClient['setCancelAtPeriodEnd']>>;

/** A stored subscription and customer, a provider that records its calls, a sync that applies the answer. */
function setup(row: StoredSubscription | null, opts: { customer?: string; goneCustomers?: string[]; providerAnswer?: unknown } = {}) {
  let current = row;
  let customer = opts.customer ?? null;
  const calls: string[] = [];
  const repo: SubscriptionsStore = {
    transaction: (work) => work({} as Prisma.TransactionClient),
    findByUser: () => Promise.resolve(current),
    findCustomer: () => Promise.resolve(customer),
    saveCustomer: (_userId, id) => {
      customer ??= id;
      return Promise.resolve(customer);
    },
    replaceCustomer: (_userId, previous, replacement) => {
      if (customer === previous) customer = replacement;
      return Promise.resolve();
    },
  };
  const stripe: Pick<StripeClient, 'createCustomer' | 'createCheckoutSession' | 'setCancelAtPeriodEnd'> = {
    createCustomer: (_userId, replacing) => {
      calls.push(`createCustomer${replacing ? ` replacing ${replacing}` : ''}`);
      return Promise.resolve(replacing ? 'cus_new' : 'cus_first');
    },
    createCheckoutSession: (_userId, customerId) => {
      calls.push(`checkout ${customerId}`);
      if (opts.goneCustomers?.includes(customerId)) return Promise.reject(new MissingCustomerError(customerId));
      return Promise.resolve({ id: `cs_${customerId}`, url: `https://checkout.example/${customerId}` });
    },
    setCancelAtPeriodEnd: (subscriptionId, cancel) => {
      calls.push(`setCancelAtPeriodEnd ${subscriptionId} ${cancel}`);
      const answer = opts.providerAnswer ?? {
        id: subscriptionId,
        customer: 'cus_1',
        status: 'active',
        cancel_at_period_end: cancel,
        items: { data: [{ current_period_end: Math.floor(inDays(10).getTime() / 1000) }] },
      };
      return Promise.resolve(answer as ProviderSubscription);
    },
  };
  const sync: Pick<SubscriptionSync, 'apply'> = {
    apply: (_tx, change, context) => {
      calls.push(`apply fromApi=${String(context.fromApi)}`);
      if (change.kind === 'subscription' && current) current = { ...current, cancelAtPeriodEnd: change.cancelAtPeriodEnd, status: change.status };
      return Promise.resolve({ outcome: 'applied' as const, row: current });
    },
  };
  return { service: new SubscriptionsService(repo, sync, stripe), calls, customer: () => customer };
}

describe('SUB-1 subscription status', () => {
  it('answers cancelled/free for a user who never subscribed, PRO while past_due', async () => {
    await expect(setup(null).service.status(USER)).resolves.toMatchObject({ status: 'cancelled', plan: 'free', tier: 'FREE', currentPeriodEnd: null });
    await expect(setup(stored({ status: 'past_due' })).service.status(USER)).resolves.toMatchObject({ tier: 'PRO', plan: 'pro' });
  });

  it('gives other services null for a user who never subscribed', async () => {
    await expect(setup(null).service.internal(USER)).resolves.toBeNull();
    await expect(setup(stored()).service.internal(USER)).resolves.toMatchObject({ userId: USER, status: 'active', cancelAtPeriodEnd: false });
  });
});

describe('SUB-2 checkout (R17)', () => {
  it('answers SUBSCRIPTION_ALREADY_ACTIVE while the stored subscription gives Pro, calling no provider', async () => {
    const { service, calls } = setup(stored({ status: 'trialing' }));
    await expect(service.checkout(USER)).rejects.toMatchObject({ code: 'SUBSCRIPTION_ALREADY_ACTIVE' });
    expect(calls).toEqual([]);
  });

  it('creates the customer on the first checkout and reuses it afterwards', async () => {
    const first = setup(null);
    await expect(first.service.checkout(USER)).resolves.toEqual({ checkoutUrl: 'https://checkout.example/cus_first', sessionId: 'cs_cus_first' });
    const again = setup(stored({ status: 'cancelled' }), { customer: 'cus_1' });
    await again.service.checkout(USER);
    expect(first.calls).toEqual(['createCustomer', 'checkout cus_first']);
    expect(again.calls).toEqual(['checkout cus_1']);
  });

  it('replaces, once, a customer that is gone at the provider', async () => {
    const { service, calls, customer } = setup(null, { customer: 'cus_gone', goneCustomers: ['cus_gone'] });
    await expect(service.checkout(USER)).resolves.toMatchObject({ sessionId: 'cs_cus_new' });
    expect(calls).toEqual(['checkout cus_gone', 'createCustomer replacing cus_gone', 'checkout cus_new']);
    expect(customer()).toBe('cus_new');
  });
});

describe('SUB-3 cancel and SUB-4 renew (R17)', () => {
  it('cancels at the period end through the provider and applies its answer; Pro stays', async () => {
    const { service, calls } = setup(stored());
    const result = await service.cancel(USER, 'req-1');
    expect(result).toMatchObject({ tier: 'PRO', cancelAtPeriodEnd: true });
    expect(result.message).toMatch(/end of the current period/);
    expect(calls).toEqual(['setCancelAtPeriodEnd sub_1 true', 'apply fromApi=true']);
  });

  it('answers a retried request as is, without calling the provider', async () => {
    const { service, calls } = setup(stored({ cancelAtPeriodEnd: true }));
    await expect(service.cancel(USER, 'req-1')).resolves.toMatchObject({ cancelAtPeriodEnd: true });
    expect(calls).toEqual([]);
  });

  it('answers SUBSCRIPTION_STATE_CONFLICT without a live subscription (none, not Pro, period over)', async () => {
    for (const row of [null, stored({ status: 'cancelled' }), stored({ currentPeriodEnd: inDays(-1) }), stored({ providerSubscriptionId: null })]) {
      const { service, calls } = setup(row);
      await expect(service.renew(USER, 'req')).rejects.toMatchObject({ code: 'SUBSCRIPTION_STATE_CONFLICT' });
      await expect(service.cancel(USER, 'req')).rejects.toMatchObject({ code: 'SUBSCRIPTION_STATE_CONFLICT' });
      expect(calls).toEqual([]);
    }
  });

  it('renews a subscription set to cancel', async () => {
    const { service } = setup(stored({ cancelAtPeriodEnd: true }));
    await expect(service.renew(USER, 'req')).resolves.toMatchObject({
      cancelAtPeriodEnd: false,
      message: 'Your subscription will renew at the end of the current period.',
    });
  });

  it('answers PROVIDER_ERROR when the provider answers something that is not a subscription', async () => {
    const { service, calls } = setup(stored(), { providerAnswer: { nothing: true } });
    await expect(service.cancel(USER, 'req')).rejects.toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(calls).toEqual(['setCancelAtPeriodEnd sub_1 true']);
  });
});

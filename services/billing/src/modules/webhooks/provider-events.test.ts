import { describe, expect, it } from 'vitest';
import { changeOf, statusFromProvider, type ProviderEventBody } from './provider-events.js';
import { backoffMs } from './webhook.worker.js';

const event = (type: string, object: Record<string, unknown>): ProviderEventBody => ({ id: 'evt_1', type, created: 1_800_000_000, data: { object } });

describe('reading Stripe events (R17)', () => {
  it('maps Stripe statuses: only active, trialing and past_due give Pro', () => {
    expect(['active', 'trialing', 'past_due'].map(statusFromProvider)).toEqual(['active', 'trialing', 'past_due']);
    expect(['canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'].map(statusFromProvider)).toEqual(Array(5).fill('cancelled'));
  });

  it('reads the period end from the items (current API) or the subscription (older API versions)', () => {
    const current = changeOf(
      event('customer.subscription.updated', {
        id: 'sub_1',
        customer: 'cus_1',
        status: 'active',
        cancel_at_period_end: true,
        metadata: { userId: '7' },
        items: { data: [{ current_period_end: 1_800_000_100 }, { current_period_end: 1_800_000_200 }] },
      }),
    );
    expect(current).toEqual({
      kind: 'subscription',
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      userId: 7,
      status: 'active',
      providerStatus: 'active',
      currentPeriodEnd: new Date(1_800_000_200_000),
      cancelAtPeriodEnd: true,
    });
    const legacy = changeOf(
      event('customer.subscription.created', { id: 'sub_2', customer: { id: 'cus_2' }, status: 'trialing', current_period_end: 1_800_000_300 }),
    );
    expect(legacy).toMatchObject({
      customerId: 'cus_2',
      userId: null,
      status: 'trialing',
      currentPeriodEnd: new Date(1_800_000_300_000),
      cancelAtPeriodEnd: false,
    });
  });

  it('turns a deletion into cancelled without cancel-at-period-end', () => {
    expect(changeOf(event('customer.subscription.deleted', { id: 'sub_1', status: 'canceled', cancel_at_period_end: true }))).toMatchObject({
      status: 'cancelled',
      providerStatus: 'canceled',
      cancelAtPeriodEnd: false,
    });
  });

  it("finds an invoice's subscription in parent.subscription_details or at the top, and ignores one-off invoices", () => {
    expect(changeOf(event('invoice.paid', { customer: 'cus_1', parent: { subscription_details: { subscription: 'sub_1' } } }))).toEqual({
      kind: 'invoice',
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      paid: true,
    });
    expect(changeOf(event('invoice.payment_failed', { customer: 'cus_1', subscription: 'sub_9' }))).toMatchObject({ subscriptionId: 'sub_9', paid: false });
    expect(changeOf(event('invoice.payment_succeeded', { customer: 'cus_1', parent: null }))).toBeNull();
  });

  it('links only subscription-mode sessions with a user id as client reference', () => {
    expect(
      changeOf(event('checkout.session.completed', { mode: 'subscription', client_reference_id: '12', customer: 'cus_1', subscription: 'sub_1' })),
    ).toEqual({
      kind: 'link',
      userId: 12,
      customerId: 'cus_1',
      subscriptionId: 'sub_1',
    });
    expect(changeOf(event('checkout.session.completed', { mode: 'payment', client_reference_id: '12', subscription: null }))).toBeNull();
    expect(changeOf(event('checkout.session.completed', { mode: 'subscription', client_reference_id: 'abc', subscription: 'sub_1' }))).toBeNull();
    expect(changeOf(event('checkout.session.completed', { mode: 'subscription', client_reference_id: '0', subscription: 'sub_1' }))).toBeNull();
  });

  it('retries failed processing after 1 s, 2 s, 4 s … capped at 10 minutes', () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(50)).toBe(600_000);
  });
});

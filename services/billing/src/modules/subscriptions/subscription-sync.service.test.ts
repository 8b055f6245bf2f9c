import { describe, expect, it } from 'vitest';
import { outboxRecorder } from '@msp/testing/fakes';
import type { SubscriptionStatus } from '../../generated/prisma/client.js';
import type { ProviderChange } from '../webhooks/provider-events.js';
import { SubscriptionSync } from './subscription-sync.service.js';
import type { StoredSubscription, SubscriptionStateStore, Tx } from './subscriptions.repository.js';

const USER = 12;
const T0 = new Date('2026-03-01T10:00:00Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const stored = (overrides: Partial<StoredSubscription> = {}): StoredSubscription => ({
  id: 1,
  userId: USER,
  providerCustomerId: 'cus_1',
  providerSubscriptionId: 'sub_1',
  status: 'active',
  plan: 'pro',
  currentPeriodEnd: later(30 * 86_400),
  cancelAtPeriodEnd: false,
  lastEventAt: T0,
  tierVersion: 1,
  ...overrides,
});

const subscription = (status: SubscriptionStatus, overrides: Partial<Extract<ProviderChange, { kind: 'subscription' }>> = {}): ProviderChange => ({
  kind: 'subscription',
  subscriptionId: 'sub_1',
  customerId: 'cus_1',
  userId: null,
  status,
  providerStatus: status === 'cancelled' ? 'canceled' : status,
  currentPeriodEnd: later(30 * 86_400),
  cancelAtPeriodEnd: false,
  ...overrides,
});

/** One user's subscription row, the customers SUB-2 created, and the per-user locks taken. */
function setup(row: StoredSubscription | null, opts: { customers?: Record<string, number>; retired?: boolean } = {}) {
  const rows = new Map<number, StoredSubscription>(row ? [[row.userId, row]] : []);
  const locks: number[] = [];
  const store: SubscriptionStateStore = {
    findByUser: (userId) => Promise.resolve(rows.get(userId) ?? null),
    userOfSubscription: (_db, id) => Promise.resolve([...rows.values()].find((r) => r.providerSubscriptionId === id)?.userId ?? null),
    userOfCustomer: (_db, id) => Promise.resolve(opts.customers?.[id] ?? null),
    lockUser: (_db, userId) => {
      locks.push(userId);
      return Promise.resolve();
    },
    create: (_db, userId, data) => {
      const created = stored({
        userId,
        providerCustomerId: null,
        providerSubscriptionId: null,
        lastEventAt: null,
        tierVersion: 0,
        currentPeriodEnd: null,
        ...data,
      });
      rows.set(userId, created);
      return Promise.resolve(created);
    },
    update: (_db, userId, data) => {
      const updated = { ...rows.get(userId)!, ...data } as StoredSubscription;
      rows.set(userId, updated);
      return Promise.resolve(updated);
    },
  };
  const outbox = outboxRecorder();
  const retired = { isRetired: () => Promise.resolve(opts.retired ?? false) };
  const sync = new SubscriptionSync(store, retired);
  return { apply: (change: ProviderChange, at: Date, fromApi = false) => sync.apply(outbox.tx as unknown as Tx, change, { at, fromApi }), rows, locks, outbox };
}

describe('SUB-5 applying provider state (R17)', () => {
  it('links a checkout to a user who never subscribed with a cancelled row, no tier change yet', async () => {
    const { apply, rows, outbox, locks } = setup(null);
    const result = await apply({ kind: 'link', userId: USER, customerId: 'cus_9', subscriptionId: 'sub_9' }, T0);
    expect(result.outcome).toBe('applied');
    expect(rows.get(USER)).toMatchObject({ status: 'cancelled', providerSubscriptionId: 'sub_9', providerCustomerId: 'cus_9', tierVersion: 0 });
    expect(outbox.events).toEqual([]);
    expect(locks).toEqual([USER]);
  });

  it('moves the tier to PRO with billing.subscription.tier-changed.v1 and a bumped version', async () => {
    const { apply, rows, outbox } = setup(stored({ status: 'cancelled', tierVersion: 3 }));
    await expect(apply(subscription('active'), later(5))).resolves.toMatchObject({ outcome: 'applied' });
    expect(rows.get(USER)).toMatchObject({ status: 'active', tierVersion: 4, lastEventAt: later(5) });
    expect(outbox.events).toEqual([
      {
        type: 'billing.subscription.tier-changed.v1',
        data: { userId: USER, tier: 'PRO', status: 'active', version: 4, currentPeriodEnd: later(30 * 86_400).toISOString() },
      },
    ]);
  });

  it('writes no tier event when the tier stays (active → past_due), and keeps the version', async () => {
    const { apply, rows, outbox } = setup(stored());
    await apply({ kind: 'invoice', subscriptionId: 'sub_1', customerId: 'cus_1', paid: false }, later(1));
    expect(rows.get(USER)).toMatchObject({ status: 'past_due', tierVersion: 1 });
    expect(outbox.events).toEqual([]);
  });

  it('drops an event older than the last applied one as stale, but applies the same second and API answers', async () => {
    const { apply, rows } = setup(stored());
    await expect(apply(subscription('cancelled'), later(-1))).resolves.toMatchObject({ outcome: 'stale' });
    expect(rows.get(USER)?.status).toBe('active');
    await expect(apply(subscription('active', { cancelAtPeriodEnd: true }), T0)).resolves.toMatchObject({ outcome: 'applied' });
    await expect(apply(subscription('active', { cancelAtPeriodEnd: false }), later(-60), true)).resolves.toMatchObject({ outcome: 'applied' });
    expect(rows.get(USER)).toMatchObject({ cancelAtPeriodEnd: false, lastEventAt: T0 });
  });

  it('never makes a subscription Pro by a failed payment', async () => {
    const { apply, rows, outbox } = setup(stored({ status: 'cancelled' }));
    await expect(apply({ kind: 'invoice', subscriptionId: 'sub_1', customerId: 'cus_1', paid: false }, later(1))).resolves.toMatchObject({
      outcome: 'ignored',
    });
    expect(rows.get(USER)?.status).toBe('cancelled');
    expect(outbox.events).toEqual([]);
  });

  it('keeps a paying subscription against another one that gives no access; the newest paid one replaces it', async () => {
    const { apply, rows } = setup(stored(), { customers: { cus_1: USER } });
    await expect(apply(subscription('cancelled', { subscriptionId: 'sub_2' }), later(1))).resolves.toMatchObject({ outcome: 'ignored' });
    expect(rows.get(USER)?.providerSubscriptionId).toBe('sub_1');
    await expect(apply(subscription('active', { subscriptionId: 'sub_2' }), later(2))).resolves.toMatchObject({ outcome: 'applied' });
    expect(rows.get(USER)?.providerSubscriptionId).toBe('sub_2');
  });

  it("finds the user by the subscription's metadata, else by the customer, else keeps the event unmatched", async () => {
    const byMetadata = setup(null);
    await expect(byMetadata.apply(subscription('active', { subscriptionId: 'sub_7', userId: 7 }), T0)).resolves.toMatchObject({ outcome: 'applied' });
    expect(byMetadata.rows.get(7)?.status).toBe('active');

    const byCustomer = setup(null, { customers: { cus_8: 8 } });
    await byCustomer.apply(subscription('trialing', { subscriptionId: 'sub_8', customerId: 'cus_8' }), T0);
    expect(byCustomer.rows.get(8)?.status).toBe('trialing');

    const nobody = setup(null);
    await expect(nobody.apply(subscription('active', { subscriptionId: 'sub_x', customerId: 'cus_x' }), T0)).resolves.toEqual({
      outcome: 'unmatched',
      row: null,
    });
    expect(nobody.locks).toEqual([]);
  });

  it('ignores news about a deleted account (ACC-5)', async () => {
    const { apply, rows, locks } = setup(stored(), { retired: true });
    await expect(apply(subscription('cancelled'), later(1))).resolves.toEqual({ outcome: 'ignored', row: null });
    expect(rows.get(USER)?.status).toBe('active');
    expect(locks).toEqual([]);
  });
});

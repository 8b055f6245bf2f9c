import { describe, expect, it } from 'vitest';
import { isProStatus, NEVER_SUBSCRIBED, toSubscriptionStatus } from './subscription-status.mapper.js';

describe('SUB-1 R17 tier from the subscription status (unit, no database)', () => {
  it('PRO while active, trialing or past_due; FREE for every other status', () => {
    expect((['active', 'trialing', 'past_due'] as const).every((s) => isProStatus(s))).toBe(true);
    expect(isProStatus('cancelled')).toBe(false);
  });

  it('a user who never subscribed reads as cancelled on the free plan', () => {
    expect(toSubscriptionStatus(null)).toEqual(NEVER_SUBSCRIBED);
    expect(toSubscriptionStatus(null)).not.toBe(NEVER_SUBSCRIBED);
  });

  it('keeps the paid plan only while PRO, and gives the period end as epoch seconds and ISO', () => {
    const end = new Date('2026-02-01T12:00:00.000Z');
    expect(toSubscriptionStatus({ status: 'past_due', plan: 'pro', currentPeriodEnd: end, cancelAtPeriodEnd: true })).toMatchObject({
      tier: 'PRO',
      plan: 'pro',
      currentPeriodEnd: end.getTime() / 1000,
      currentPeriodEndAt: '2026-02-01T12:00:00.000Z',
      cancelAtPeriodEnd: true,
    });
    expect(toSubscriptionStatus({ status: 'cancelled', plan: 'pro', currentPeriodEnd: null, cancelAtPeriodEnd: false })).toMatchObject({
      tier: 'FREE',
      plan: 'free',
      currentPeriodEnd: null,
    });
  });
});

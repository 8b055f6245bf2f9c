import { PRO_SUBSCRIPTION_STATUSES, type SubscriptionStatusResponse } from '@msp/contracts';
import type { SubscriptionPlan, SubscriptionStatus } from '../../generated/prisma/client.js';

export interface SubscriptionRow {
  status: SubscriptionStatus;
  plan: SubscriptionPlan;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

/** What a user who never subscribed sees (SubscriptionStatusResponse with status `cancelled`). */
export const NEVER_SUBSCRIBED: SubscriptionStatusResponse = {
  status: 'cancelled',
  plan: 'free',
  tier: 'FREE',
  currentPeriodEnd: null,
  currentPeriodEndAt: null,
  cancelAtPeriodEnd: false,
};

/** R17: PRO while active, trialing or past_due; FREE (and the free plan) otherwise. */
export function isProStatus(status: SubscriptionStatus): boolean {
  return PRO_SUBSCRIPTION_STATUSES.includes(status);
}

export function toSubscriptionStatus(row: SubscriptionRow | null): SubscriptionStatusResponse {
  if (!row) return { ...NEVER_SUBSCRIBED };
  const pro = isProStatus(row.status);
  const end = row.currentPeriodEnd;
  return {
    status: row.status,
    plan: pro ? row.plan : 'free',
    tier: pro ? 'PRO' : 'FREE',
    // The one epoch-seconds instant of the API (§1 Timestamps); currentPeriodEndAt is its ISO twin.
    currentPeriodEnd: end ? Math.floor(end.getTime() / 1000) : null,
    currentPeriodEndAt: end ? end.toISOString() : null,
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
  };
}

import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/**
 * Events produced by the billing service (`billing.<aggregate>.<verb>.v<N>`). Definitions are added
 * with the features that publish them; changes are additive only.
 */

/**
 * R17: the user's tier moved (PRO while the subscription is active, trialing or past_due, FREE
 * otherwise). `version` grows with every change of that user's tier, so a consumer that gets two
 * changes out of order (redelivery after a failure) keeps the later one. Identity stores the tier
 * and announces it to the fleet as identity.user.tier-changed.v1.
 */
export const SubscriptionTierChanged = defineEvent(
  'billing.subscription.tier-changed.v1',
  z.object({
    userId: z.number().int().positive(),
    tier: z.enum(['FREE', 'PRO']),
    status: z.enum(['active', 'trialing', 'past_due', 'cancelled']),
    version: z.number().int().positive(),
    currentPeriodEnd: z.string().nullable(),
  }),
);

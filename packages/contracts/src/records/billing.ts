import { z } from 'zod';

import { SubscriptionPlanSchema, SubscriptionStatusSchema, TierSchema } from '../enums.js';
import { DateTimeSchema } from './primitives.js';

/**
 * The subscription status record. Named …Response because
 * `SubscriptionStatusSchema` is already the enum of the same name.
 */
export const SubscriptionStatusResponseSchema = z.object({
  /** `cancelled` for users who never subscribed. */
  status: SubscriptionStatusSchema,
  plan: SubscriptionPlanSchema,
  tier: TierSchema,
  /** Epoch seconds, kept for client compatibility (the only non-ISO instant of the API). */
  currentPeriodEnd: z.number().int().nullable(),
  /** ISO twin of currentPeriodEnd. */
  currentPeriodEndAt: DateTimeSchema.nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
export type SubscriptionStatusResponse = z.infer<typeof SubscriptionStatusResponseSchema>;

export const SubscriptionChangeResultSchema = SubscriptionStatusResponseSchema.extend({
  message: z.string(),
});
export type SubscriptionChangeResult = z.infer<typeof SubscriptionChangeResultSchema>;

export const CheckoutSessionSchema = z.object({
  checkoutUrl: z.string(),
  sessionId: z.string(),
});
export type CheckoutSession = z.infer<typeof CheckoutSessionSchema>;

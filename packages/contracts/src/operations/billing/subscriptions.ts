import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { CheckoutSessionSchema, SubscriptionChangeResultSchema, SubscriptionStatusResponseSchema } from '../../records/billing.js';

/** SUB-2 accepts no body or `{plan: "pro"}` (the one paid plan, R17). */
const CheckoutBodySchema = z
  .object({ plan: z.literal('pro').optional() })
  .optional()
  .nullable();

const changeResult = { 200: SubscriptionChangeResultSchema };

/** The operations of billing's subscriptions module (services/billing/src/modules/subscriptions): contract row, input and output. */
export const BILLING_SUBSCRIPTIONS = {
  'SUB-1': {
    method: 'GET',
    path: '/subscription/status',
    auth: 'bearer',
    owner: 'billing',
    bodyKind: 'none',
    summary: 'Subscription status',
    errors: ['UNAUTHORIZED'],

    response: { 200: SubscriptionStatusResponseSchema },
  },
  'SUB-2': {
    method: 'POST',
    path: '/subscription/checkout',
    auth: 'bearer',
    owner: 'billing',
    bodyKind: 'json',
    summary: 'Initiate a checkout session with a payment provider',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'SUBSCRIPTION_ALREADY_ACTIVE', 'PROVIDER_ERROR'],

    body: CheckoutBodySchema,
    response: { 200: CheckoutSessionSchema },
  },
  'SUB-3': {
    method: 'POST',
    path: '/subscription/cancel',
    auth: 'bearer',
    owner: 'billing',
    bodyKind: 'none',
    summary: 'Cancel',
    errors: ['UNAUTHORIZED', 'SUBSCRIPTION_STATE_CONFLICT', 'PROVIDER_ERROR'],

    response: changeResult,
  },
  'SUB-4': {
    method: 'POST',
    path: '/subscription/renew',
    auth: 'bearer',
    owner: 'billing',
    bodyKind: 'none',
    summary: 'Renew',
    errors: ['UNAUTHORIZED', 'SUBSCRIPTION_STATE_CONFLICT', 'PROVIDER_ERROR'],

    response: changeResult,
  },
} satisfies Operations;

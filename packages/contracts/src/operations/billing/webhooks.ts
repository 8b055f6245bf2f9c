import type { Operations } from '../../operation-schema.js';
import { MessageResponseSchema } from '../../records/common.js';

/** The operations of billing's webhooks module (services/billing/src/modules/webhooks): contract row, input and output. */
export const BILLING_WEBHOOKS = {
  'SUB-5': {
    method: 'POST',
    path: '/webhook/stripe',
    auth: 'webhook-signature',
    owner: 'billing',
    bodyKind: 'raw',
    summary: 'Payment-provider webhook listener',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_SIGNATURE'],

    response: { 200: MessageResponseSchema },
  },
} satisfies Operations;

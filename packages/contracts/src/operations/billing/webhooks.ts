import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of billing's webhooks operations (services/billing/src/modules/webhooks). */
export const BILLING_WEBHOOKS = {} satisfies OperationSchemas;

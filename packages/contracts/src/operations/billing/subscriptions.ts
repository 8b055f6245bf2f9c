import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of billing's subscriptions operations (services/billing/src/modules/subscriptions). */
export const BILLING_SUBSCRIPTIONS = {} satisfies OperationSchemas;

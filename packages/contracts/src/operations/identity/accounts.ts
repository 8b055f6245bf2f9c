import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's accounts operations (services/identity/src/modules/accounts). */
export const IDENTITY_ACCOUNTS = {} satisfies OperationSchemas;

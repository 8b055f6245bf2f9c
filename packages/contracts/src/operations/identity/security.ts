import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's security operations (services/identity/src/modules/security). */
export const IDENTITY_SECURITY = {} satisfies OperationSchemas;

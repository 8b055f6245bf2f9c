import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's mfa operations (services/identity/src/modules/mfa). */
export const IDENTITY_MFA = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's passkeys operations (services/identity/src/modules/passkeys). */
export const IDENTITY_PASSKEYS = {} satisfies OperationSchemas;

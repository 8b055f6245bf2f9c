import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's deletion operations (services/identity/src/modules/deletion). */
export const IDENTITY_DELETION = {} satisfies OperationSchemas;

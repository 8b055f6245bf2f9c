import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's oauth operations (services/identity/src/modules/oauth). */
export const IDENTITY_OAUTH = {} satisfies OperationSchemas;

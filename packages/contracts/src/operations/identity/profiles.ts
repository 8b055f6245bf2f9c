import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's profiles operations (services/identity/src/modules/profiles). */
export const IDENTITY_PROFILES = {} satisfies OperationSchemas;

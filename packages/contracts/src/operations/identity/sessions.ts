import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's sessions operations (services/identity/src/modules/sessions). */
export const IDENTITY_SESSIONS = {} satisfies OperationSchemas;

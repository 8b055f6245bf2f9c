import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's apps operations (services/identity/src/modules/apps). */
export const IDENTITY_APPS = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's exports operations (services/identity/src/modules/exports). */
export const IDENTITY_EXPORTS = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's images operations (services/identity/src/modules/images). */
export const IDENTITY_IMAGES = {} satisfies OperationSchemas;

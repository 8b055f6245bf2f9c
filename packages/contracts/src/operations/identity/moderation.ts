import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's moderation operations (services/identity/src/modules/moderation). */
export const IDENTITY_MODERATION = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of social's blocks operations (services/social/src/modules/blocks). */
export const SOCIAL_BLOCKS = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of social's comments operations (services/social/src/modules/comments). */
export const SOCIAL_COMMENTS = {} satisfies OperationSchemas;

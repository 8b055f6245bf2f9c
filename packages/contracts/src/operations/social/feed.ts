import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of social's feed operations (services/social/src/modules/feed). */
export const SOCIAL_FEED = {} satisfies OperationSchemas;

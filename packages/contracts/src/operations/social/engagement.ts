import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of social's engagement operations (services/social/src/modules/engagement). */
export const SOCIAL_ENGAGEMENT = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of social's reports operations (services/social/src/modules/reports). */
export const SOCIAL_REPORTS = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's analytics operations (services/catalog/src/modules/analytics). */
export const CATALOG_ANALYTICS = {} satisfies OperationSchemas;

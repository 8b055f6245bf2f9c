import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's insights operations (services/catalog/src/modules/insights). */
export const CATALOG_INSIGHTS = {} satisfies OperationSchemas;

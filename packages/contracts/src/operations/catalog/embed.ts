import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's embed operations (services/catalog/src/modules/embed). */
export const CATALOG_EMBED = {} satisfies OperationSchemas;

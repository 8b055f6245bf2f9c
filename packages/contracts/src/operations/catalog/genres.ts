import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's genres operations (services/catalog/src/modules/genres). */
export const CATALOG_GENRES = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's media operations (services/catalog/src/modules/media). */
export const CATALOG_MEDIA = {} satisfies OperationSchemas;

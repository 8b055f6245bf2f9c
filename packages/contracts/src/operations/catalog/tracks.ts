import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's tracks operations (services/catalog/src/modules/tracks). */
export const CATALOG_TRACKS = {} satisfies OperationSchemas;

import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's discovery operations (services/catalog/src/modules/discovery). */
export const CATALOG_DISCOVERY = {} satisfies OperationSchemas;

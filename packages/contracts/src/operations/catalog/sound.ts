import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's sound operations (services/catalog/src/modules/sound). */
export const CATALOG_SOUND = {} satisfies OperationSchemas;

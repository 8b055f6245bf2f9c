import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of catalog's playlists operations (services/catalog/src/modules/playlists). */
export const CATALOG_PLAYLISTS = {} satisfies OperationSchemas;

import { CatalogExportPartReady } from '@msp/events';
import { defineExportPart } from '@msp/runtime';
import { CatalogExportRepository } from './export.repository.js';

/** catalog--account-export: catalog's part of an account export (docs/account-control.md "Export"). */
export const startCatalogExport = defineExportPart('catalog', CatalogExportPartReady, (db) => new CatalogExportRepository(db));

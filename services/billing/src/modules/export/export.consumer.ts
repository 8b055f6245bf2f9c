import { BillingExportPartReady } from '@msp/events';
import { defineExportPart } from '@msp/runtime';
import { BillingExportRepository } from './export.repository.js';

/** billing--account-export: billing's part of an account export (docs/account-control.md "Export"). */
export const startBillingExport = defineExportPart('billing', BillingExportPartReady, (db) => new BillingExportRepository(db));

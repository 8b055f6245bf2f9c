import { MessagingExportPartReady } from '@msp/events';
import { defineExportPart } from '@msp/runtime';
import { MessagingExportRepository } from './export.repository.js';

/** messaging--account-export: messaging's part of an account export (docs/account-control.md "Export"). */
export const startMessagingExport = defineExportPart('messaging', MessagingExportPartReady, (db) => new MessagingExportRepository(db));

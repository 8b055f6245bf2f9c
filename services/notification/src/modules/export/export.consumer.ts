import { NotificationExportPartReady } from '@msp/events';
import { defineExportPart } from '@msp/runtime';
import { NotificationExportRepository } from './export.repository.js';

/** notification--account-export: notification's part of an account export (docs/account-control.md "Export"). */
export const startNotificationExport = defineExportPart('notification', NotificationExportPartReady, (db) => new NotificationExportRepository(db));

import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/**
 * A service's part of an account export (ACC-1, docs/account-control.md "Export"), answering
 * `identity.user.export-requested.v1`. Each service writes its part as JSON into its own bucket
 * (`exports/{exportId}/parts/{service}.json`) and lists the files the user uploaded (originals,
 * images) that go into the ZIP as they are. Buckets are private to their service, so every object
 * travels with a presigned GET URL (`url`, valid a few days) that identity reads to build the ZIP.
 */
export const ExportPartReadySchema = z.object({
  exportId: z.uuid(),
  service: z.string(),
  objectKey: z.string(),
  url: z.string(),
  files: z.array(z.object({ objectKey: z.string(), name: z.string(), url: z.string() })),
});
export type ExportPartReady = z.infer<typeof ExportPartReadySchema>;

export const CatalogExportPartReady = defineEvent('catalog.user.export-part-ready.v1', ExportPartReadySchema);
export const SocialExportPartReady = defineEvent('social.user.export-part-ready.v1', ExportPartReadySchema);
export const MessagingExportPartReady = defineEvent('messaging.user.export-part-ready.v1', ExportPartReadySchema);
export const NotificationExportPartReady = defineEvent('notification.user.export-part-ready.v1', ExportPartReadySchema);
export const BillingExportPartReady = defineEvent('billing.user.export-part-ready.v1', ExportPartReadySchema);

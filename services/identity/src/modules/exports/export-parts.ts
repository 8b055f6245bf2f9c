import {
  BillingExportPartReady,
  CatalogExportPartReady,
  MessagingExportPartReady,
  NotificationExportPartReady,
  SocialExportPartReady,
  type EventDefinition,
  type ExportPartReady,
} from '@msp/events';

/**
 * The ONE list of the parts an export waits for (docs/account-control.md "Export"). An export
 * stores the list it was requested with, so adding a service here does not stall exports in flight.
 * A service joins by producing its part (packages/runtime `startExportPartProducer`) and adding its
 * event to `PART_EVENTS`.
 */
export const EXPORT_PARTS = ['identity', 'catalog', 'social', 'messaging', 'notification', 'billing'] as const;

/** The part-ready event of every service that can produce a part (identity records its own directly). */
export const PART_EVENTS: Record<string, EventDefinition<ExportPartReady>> = {
  catalog: CatalogExportPartReady,
  social: SocialExportPartReady,
  messaging: MessagingExportPartReady,
  notification: NotificationExportPartReady,
  billing: BillingExportPartReady,
};

import { NotificationExportPartReady, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { startExportPartProducer, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import { NotificationExportRepository } from './export.repository.js';

/** notification--account-export: notification's part of an account export (docs/account-control.md "Export"). */
export function startNotificationExport<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
}) {
  const repo = new NotificationExportRepository(options.db);
  return startExportPartProducer({
    ...options,
    service: 'notification',
    event: NotificationExportPartReady,
    sections: (u) => repo.sections(u),
    files: () => Promise.resolve([]),
  });
}

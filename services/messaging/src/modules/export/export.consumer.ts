import { MessagingExportPartReady, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { startExportPartProducer, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import { MessagingExportRepository } from './export.repository.js';

/** messaging--account-export: messaging's part of an account export (docs/account-control.md "Export"). */
export function startMessagingExport<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
}) {
  const repo = new MessagingExportRepository(options.db);
  return startExportPartProducer({
    ...options,
    service: 'messaging',
    event: MessagingExportPartReady,
    sections: (u) => repo.sections(u),
    files: () => Promise.resolve([]),
  });
}

import { CatalogExportPartReady, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { startExportPartProducer, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import { CatalogExportRepository } from './export.repository.js';

/** catalog--account-export: catalog's part of an account export (docs/account-control.md "Export"). */
export function startCatalogExport<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
}) {
  const repo = new CatalogExportRepository(options.db);
  return startExportPartProducer({
    ...options,
    service: 'catalog',
    event: CatalogExportPartReady,
    sections: (userId) => repo.sections(userId),
    files: (userId) => repo.files(userId),
  });
}

import { BillingExportPartReady, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { startExportPartProducer, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import { BillingExportRepository } from './export.repository.js';

/** billing--account-export: billing's part of an account export (docs/account-control.md "Export"). */
export function startBillingExport<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
}) {
  const repo = new BillingExportRepository(options.db);
  return startExportPartProducer({
    ...options,
    service: 'billing',
    event: BillingExportPartReady,
    sections: (u) => repo.sections(u),
    files: () => Promise.resolve([]),
  });
}

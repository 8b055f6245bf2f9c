import { SocialExportPartReady, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { startExportPartProducer, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import { SocialExportRepository } from './export.repository.js';

/** social--account-export: social's part of an account export (docs/account-control.md "Export"); no files. */
export function startSocialExport<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
}) {
  const repo = new SocialExportRepository(options.db);
  return startExportPartProducer({
    ...options,
    service: 'social',
    event: SocialExportPartReady,
    sections: (userId) => repo.sections(userId),
    files: () => Promise.resolve([]),
  });
}

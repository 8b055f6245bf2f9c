import type { ServiceName } from '@msp/contracts';
import type { EventDefinition, ExportPartReady, NatsConnection, SqlExecutor, TransactionalClient } from '@msp/events';
import type { ObjectStorage } from '@msp/storage';
import { startExportPartProducer, type ExportFile, type ExportSection } from './account-export.js';
import type { Logger } from './logger.js';

/** What a service's part of an account export reads: usually its `export.repository.ts`. */
export interface ExportPartSource {
  /** The user's data, by section (rows as async iterables: see `pages`). */
  sections(userId: number): Record<string, ExportSection>;
  /** The files the user uploaded that go into the ZIP as they are; none when absent. */
  files?(userId: number): Promise<ExportFile[]>;
}

export interface ExportPartDeps<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
}

/**
 * A service's part of an account export (docs/account-control.md "Export"), declared in one line:
 * its name, its `<service>.user.export-part-ready.v1` event and the source of its data. The function
 * returned starts the `<service>--account-export` consumer (`startExportPartProducer`).
 */
export function defineExportPart(service: ServiceName, event: EventDefinition<ExportPartReady>, source: (db: SqlExecutor) => ExportPartSource) {
  return <Tx extends SqlExecutor>(deps: ExportPartDeps<Tx>) => {
    const part = source(deps.db);
    return startExportPartProducer({
      ...deps,
      service,
      event,
      sections: (userId) => part.sections(userId),
      files: (userId) => (part.files ? part.files(userId) : Promise.resolve([])),
    });
  };
}

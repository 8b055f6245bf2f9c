import type { ServiceName } from '@msp/contracts';
import {
  DurableConsumer,
  UserExportClosed,
  UserExportRequested,
  writeOutbox,
  type EventDefinition,
  type ExportPartReady,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import type { ObjectStorage } from '@msp/storage';
import type { Logger } from './logger.js';

/** How long the presigned URLs of a part stay valid: identity builds the ZIP well before (S3 allows ≤ 7 days). */
export const EXPORT_PART_URL_SECONDS = 6 * 24 * 60 * 60;

/** A section of a part: a value written as it is, or rows streamed one by one into a JSON array. */
export type ExportSection = unknown;

/** A file the user uploaded that goes into the ZIP as it is, under `name`. */
export interface ExportFile {
  objectKey: string;
  name: string;
}

/** Keyset paging: `fetch(last)` answers the rows after `last` (undefined: the first page); an empty page ends. */
export async function* pages<T>(fetch: (last: T | undefined) => Promise<T[]>): AsyncIterable<T> {
  let last: T | undefined;
  for (;;) {
    const rows = await fetch(last);
    if (rows.length === 0) return;
    yield* rows;
    last = rows[rows.length - 1];
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * The part as JSON, produced piece by piece (a section of rows is never held whole):
 * `{"service":…,"userId":…,"exportedAt":…,"<section>":…}`.
 */
export async function* exportJson(head: Record<string, unknown>, sections: Record<string, ExportSection>): AsyncIterable<Buffer> {
  const headJson = json(head);
  yield Buffer.from(headJson.slice(0, -1));
  let first = headJson === '{}';
  for (const [name, section] of Object.entries(sections)) {
    yield Buffer.from(`${first ? '' : ','}${json(name)}:`);
    first = false;
    if (!isAsyncIterable(section)) {
      yield Buffer.from(json(section ?? null));
      continue;
    }
    yield Buffer.from('[');
    let n = 0;
    let batch: string[] = [];
    for await (const row of section) {
      batch.push(json(row));
      if (batch.length === 200) {
        yield Buffer.from(`${n === 0 ? '' : ','}${batch.join(',')}`);
        n += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) yield Buffer.from(`${n === 0 ? '' : ','}${batch.join(',')}`);
    yield Buffer.from(']');
  }
  yield Buffer.from('}');
}

export interface ExportPartProducerOptions<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
  service: ServiceName;
  /** The service's `<service>.user.export-part-ready.v1` (packages/events/src/definitions/account-export.ts). */
  event: EventDefinition<ExportPartReady>;
  /** The user's data, by section (rows as async iterables: see `pages`). */
  sections(userId: number): Record<string, ExportSection>;
  /** The files the user uploaded (originals, images) that go into the ZIP as they are. */
  files(userId: number): Promise<ExportFile[]>;
}

/**
 * ACC-1 (docs/account-control.md "Export"): the `<service>--account-export` consumer of
 * identity.user.export-requested.v1. It streams the service's part into its own bucket
 * (`exports/{exportId}/parts/{service}.json`, a multipart upload: bounded memory), then publishes the
 * part-ready event with presigned URLs of the part and the files, which identity reads to build the
 * ZIP. It runs outside a transaction (`onLongRunning`); a redelivery after a crash writes the same key
 * again and publishes the part again, which identity records idempotently. On
 * identity.user.export-closed.v1 (READY, FAILED or CANCELLED) it removes the part again.
 */
export async function startExportPartProducer<Tx extends SqlExecutor>(options: ExportPartProducerOptions<Tx>): Promise<DurableConsumer<Tx>> {
  const { storage, service, db } = options;
  const consumer = new DurableConsumer<Tx>({
    nc: options.nc,
    db,
    logger: options.logger,
    service,
    name: 'account-export',
    from: 'identity',
    ackWaitMs: 60_000,
  })
    .onLongRunning(UserExportRequested, async (d, envelope) => {
      const objectKey = `exports/${d.exportId}/parts/${service}.json`;
      const head = { service, userId: d.userId, exportId: d.exportId, exportedAt: new Date().toISOString() };
      await storage.putStream(objectKey, exportJson(head, options.sections(d.userId)), 'application/json');
      const files = await options.files(d.userId);
      const part: ExportPartReady = {
        exportId: d.exportId,
        service,
        objectKey,
        url: await storage.presignedGet(objectKey, EXPORT_PART_URL_SECONDS),
        files: await Promise.all(files.map(async (f) => ({ ...f, url: await storage.presignedGet(f.objectKey, EXPORT_PART_URL_SECONDS) }))),
      };
      await db.$transaction(async (tx) => {
        await writeOutbox(tx, options.event, part, { correlationId: envelope.correlationId ?? envelope.id });
      });
    })
    // The export is built, failed or cancelled: its part is no longer needed (idempotent: a removed prefix lists nothing).
    .onLongRunning(UserExportClosed, async (d) => {
      await storage.remove(await storage.list(`exports/${d.exportId}/`));
    });
  await consumer.start();
  return consumer;
}

import { randomUUID } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { AppError } from '@msp/errors';
import { DurableConsumer, DurableWorker, UserExportRequested, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { EXPORT_PART_URL_SECONDS, exportJson, type Logger } from '@msp/runtime';
import type { ObjectStorage } from '@msp/storage';
import type { Links } from '../../links.js';
import { EXPORT_PARTS, PART_EVENTS } from './export-parts.js';
import type { ExportsRepository, StoredExport, StoredPart } from './exports.repository.js';
import type { AccountExport } from '@msp/contracts';
import { exportReadyMail } from './exports.mail.js';
import { collectingYoungGarbage } from './young-garbage.js';

/** One export per 24 h (ACC-1 answers 429 with Retry-After within it). */
export const EXPORT_COOLDOWN_SECONDS = 24 * 60 * 60;
/** The ZIP's signed URL and the ZIP itself last 24 h (then EXPIRED, the ZIP removed). */
export const EXPORT_TTL_SECONDS = 24 * 60 * 60;
/** An export whose parts did not all come within this is FAILED (a service was down for hours). */
const EXPORT_MAX_AGE_SECONDS = 6 * 60 * 60;
/** The assembler's lease, renewed every LEASE_SECONDS / 3 while it streams the ZIP. */
const LEASE_SECONDS = 60;
const MAX_ATTEMPTS = 5;
/** The ZIP stream collects its young garbage after every this many bytes (see `collectingYoungGarbage`). */
const COLLECT_EVERY_BYTES = 2 * 1024 * 1024;

export function zipKeyOf(exportId: string): string {
  return `exports/${exportId}/export.zip`;
}

function iso(d: Date | null): string | null {
  return d ? d.toISOString() : null;
}

/** ACC-1 and ACC-2 (docs/account-control.md "Export"). */
export class ExportsService {
  constructor(
    private readonly rows: ExportsRepository,
    private readonly storage: ObjectStorage,
    private readonly onRequested: () => void = () => undefined,
  ) {}

  async request(userId: number): Promise<{ exportId: string }> {
    const result = await this.rows.request(userId, randomUUID(), EXPORT_PARTS, EXPORT_COOLDOWN_SECONDS);
    if ('running' in result) throw new AppError('EXPORT_IN_PROGRESS', 'An export of your data is being prepared; wait for it to finish.');
    if ('retryAfterSeconds' in result) {
      throw new AppError('RATE_LIMITED', 'One export per 24 hours.', { headers: { 'retry-after': String(result.retryAfterSeconds) } });
    }
    this.onRequested();
    return { exportId: result.created.id };
  }

  async get(userId: number, exportId: string): Promise<AccountExport> {
    const found = await this.rows.find(userId, exportId);
    if (!found) throw new AppError('RESOURCE_NOT_FOUND', 'No such export.');
    return this.view(found);
  }

  private async view(e: StoredExport): Promise<AccountExport> {
    const expired = e.status === 'READY' && e.expiresAt !== null && e.expiresAt.getTime() <= Date.now();
    const status = expired ? 'EXPIRED' : e.status;
    const out: AccountExport = { id: e.id, status, createdAt: e.createdAt.toISOString(), readyAt: iso(e.readyAt), expiresAt: iso(e.expiresAt) };
    if (status === 'READY' && e.objectKey && e.expiresAt) {
      const seconds = Math.max(1, Math.floor((e.expiresAt.getTime() - Date.now()) / 1000));
      out.url = await this.storage.presignedGet(e.objectKey, Math.min(seconds, EXPORT_TTL_SECONDS));
    }
    return out;
  }
}

/**
 * The durable consumers of the export: identity's own part (from its own stream, so a restart
 * mid-way is redelivered) and every other service's part-ready event. Each records the part on the
 * export and wakes the assembler.
 */
export async function startExportConsumers<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
  storage: ObjectStorage;
  rows: ExportsRepository;
  partRecorded: () => void;
}): Promise<Array<DurableConsumer<Tx>>> {
  const { nc, db, logger, storage, rows, partRecorded } = options;
  const consumers: Array<DurableConsumer<Tx>> = [];

  // identity's part: profile, settings, e-mails, sessions, passkey names, apps; the images as files.
  consumers.push(
    new DurableConsumer<Tx>({ nc, db, logger, service: 'identity', name: 'account-export', from: 'identity', ackWaitMs: 60_000 }).onLongRunning(
      UserExportRequested,
      async (d) => {
        const running = await rows.findRunning(db, d.exportId);
        if (!running) return;
        const data = await rows.identityData(db, d.userId);
        if (!data) return;
        const objectKey = `exports/${d.exportId}/parts/identity.json`;
        const { avatarKey, coverKey, ...profile } = data.profile as Record<string, unknown> & { avatarKey: string | null; coverKey: string | null };
        const head = { service: 'identity', userId: d.userId, exportId: d.exportId, exportedAt: new Date().toISOString() };
        await storage.putStream(objectKey, exportJson(head, { ...data, profile }), 'application/json');
        const files = [
          ...(avatarKey ? [{ objectKey: avatarKey, name: `identity/images/avatar${extensionOf(avatarKey)}` }] : []),
          ...(coverKey ? [{ objectKey: coverKey, name: `identity/images/cover${extensionOf(coverKey)}` }] : []),
        ];
        const part: StoredPart = {
          service: 'identity',
          objectKey,
          url: await storage.presignedGet(objectKey, EXPORT_PART_URL_SECONDS),
          files: await Promise.all(files.map(async (f) => ({ ...f, url: await storage.presignedGet(f.objectKey, EXPORT_PART_URL_SECONDS) }))),
        };
        if (await rows.recordPart(db, d.exportId, 'identity', part)) partRecorded();
      },
    ),
  );

  for (const [service, event] of Object.entries(PART_EVENTS)) {
    consumers.push(
      new DurableConsumer<Tx>({ nc, db, logger, service: 'identity', name: `export-part-${service}`, from: event.producer }).on(
        event,
        async (d, _envelope, tx) => {
          const { exportId, ...part } = d;
          if (await rows.recordPart(tx, exportId, service, part)) setImmediate(partRecorded);
        },
      ),
    );
  }
  for (const consumer of consumers) await consumer.start();
  return consumers;
}

function extensionOf(key: string): string {
  const match = /\.[a-z0-9]{1,5}$/i.exec(key);
  return match ? match[0].toLowerCase() : '';
}

/** Unique names inside the ZIP: a repeated name gets " (2)", " (3)" before its extension. */
function uniqueNames() {
  const seen = new Set<string>();
  return (name: string): string => {
    const clean = name
      .replace(/\\/g, '/')
      .replace(/^\/+/, '')
      .replace(/(^|\/)\.\.(?=\/|$)/g, '$1_');
    let candidate = clean;
    for (let i = 2; seen.has(candidate); i += 1) {
      const dot = clean.lastIndexOf('.');
      candidate = dot > clean.lastIndexOf('/') ? `${clean.slice(0, dot)} (${i})${clean.slice(dot)}` : `${clean} (${i})`;
    }
    seen.add(candidate);
    return candidate;
  };
}

/**
 * One entry's bytes over its presigned URL, with node's HTTP client: its body arrives as slices of
 * each socket read, where `fetch` (undici) also copies them into its parser's WebAssembly memory and
 * wraps them in web streams, which kept identity's resident memory 15 to 30 MB higher while it
 * streamed (docs/benchmarks/account-export.md). A redirect is an error like any answer but 200.
 */
async function openUrl(url: string, allowedOrigin: string, signal: AbortSignal): Promise<Readable> {
  const target = new URL(url);
  // Only the object store's presigned URLs: an event naming another host is refused (no request to it).
  if (target.origin !== allowedOrigin) throw new Error(`export object outside the object store: ${target.origin}`);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    (target.protocol === 'https:' ? httpsGet : httpGet)(target, { signal }, resolve).on('error', reject);
  });
  if (res.statusCode !== 200) {
    res.resume();
    throw new Error(`export object answered ${res.statusCode}`);
  }
  return res;
}

/**
 * The assembler (a `DurableWorker`): claims an export whose every expected part is in (a lease, so a
 * restart mid-way claims it again and writes the same key anew), streams ONE ZIP of the parts and
 * the original files into object storage (a multipart upload: about one part in memory; each file is
 * opened only when its turn comes), then marks it READY, publishes identity.user.export-ready.v1 and
 * queues the mail in one transaction. An export cancelled meanwhile (an account deletion) is noticed
 * at the next heartbeat: its ZIP stops and the upload is aborted. It also expires READY exports after
 * 24 h, fails exports whose parts never came, and removes the objects of ended exports.
 */
export class ExportAssembler {
  readonly worker: DurableWorker;
  /** The exports this process is writing, each with the switch that stops its ZIP. */
  private readonly inHand = new Map<string, AbortController>();
  private readonly allowedOrigin: string;

  constructor(
    private readonly rows: ExportsRepository,
    private readonly storage: ObjectStorage,
    private readonly links: Links,
    private readonly logger: Logger,
    /** The object store's endpoint (S3_ENDPOINT): the only origin the assembler reads from. */
    objectStoreEndpoint: string,
    pollMs = 5_000,
    private readonly leaseSeconds = LEASE_SECONDS,
  ) {
    this.allowedOrigin = new URL(objectStoreEndpoint).origin;
    this.worker = new DurableWorker({
      name: 'account-export-assembler',
      logger,
      pollMs,
      backoff: { baseMs: 1_000, maxMs: 60_000 },
      heartbeat: { everyMs: (leaseSeconds * 1000) / 3, beat: () => this.beat() },
      batch: async (ctx) => {
        await this.housekeeping();
        if (ctx.stopping) return {};
        const claimed = await this.rows.claimComplete(leaseSeconds);
        if (!claimed) return {};
        if (claimed.attempts > MAX_ATTEMPTS) {
          await this.rows.markFailed(claimed.id, 'the ZIP could not be built');
          return { failed: 1, more: true };
        }
        const ended = new AbortController();
        this.inHand.set(claimed.id, ended);
        try {
          const key = zipKeyOf(claimed.id);
          const zip = this.zip(claimed, AbortSignal.any([ctx.signal, ended.signal]));
          try {
            await this.storage.putStream(key, collectingYoungGarbage(zip, COLLECT_EVERY_BYTES), 'application/zip');
          } catch (err) {
            // Cancelled meanwhile (an account deletion): the upload is aborted, nothing is left to do.
            if (ended.signal.aborted) return { done: 1, more: true };
            throw err;
          }
          const ready = await this.rows.markReady(claimed.id, key, EXPORT_TTL_SECONDS, (expiresAt) => ({
            to: claimed.email,
            content: exportReadyMail(claimed.displayName, this.links.webUrl(`/settings/export/${claimed.id}`), expiresAt),
          }));
          if (!ready) await this.storage.remove([key]);
          // The ZIP holds identity's part now (the other services remove theirs on identity.user.export-closed.v1).
          await this.storage.remove(await this.storage.list(`exports/${claimed.id}/parts/`));
          return { done: 1, more: true };
        } finally {
          this.inHand.delete(claimed.id);
        }
      },
    });
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  /**
   * The heartbeat: renews the leases of the exports in hand, and stops writing the ZIP of one that
   * is no longer RUNNING (cancelled by an account deletion) instead of streaming it to the end.
   */
  private async beat(): Promise<void> {
    const ids = [...this.inHand.keys()];
    const running = new Set(await this.rows.renewLeases(ids, this.leaseSeconds));
    for (const id of ids) if (!running.has(id)) this.inHand.get(id)?.abort(new Error(`export ${id} is no longer running`));
  }

  wake(): void {
    this.worker.wake();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  private async housekeeping(): Promise<void> {
    await this.rows.expireDue();
    await this.rows.failStale(EXPORT_MAX_AGE_SECONDS);
    const ended = await this.rows.toSweep(50);
    for (const id of ended) {
      const keys = await this.storage.list(`exports/${id}/`);
      await this.storage.remove(keys);
    }
    await this.rows.markSwept(ended);
  }

  /** The ZIP as a stream: each part's JSON at `<service>.json`, then every file under its name, stored uncompressed. */
  private zip(e: StoredExport, signal: AbortSignal): AsyncIterable<Buffer> {
    const zip = new ZipFile();
    const name = uniqueNames();
    const mtime = new Date();
    const output = zip.outputStream as Readable;
    const fail = (err: unknown) => output.destroy(err instanceof Error ? err : new Error(String(err)));
    zip.on('error', fail);
    const open = (url: string) => (cb: (err: unknown, stream: NodeJS.ReadableStream) => void) => {
      openUrl(url, this.allowedOrigin, signal).then(
        (stream) => {
          stream.on('error', fail);
          cb(null, stream);
        },
        (err: unknown) => fail(err),
      );
    };
    const services = [...e.expectedParts].sort((a, b) => (a === 'identity' ? -1 : b === 'identity' ? 1 : a.localeCompare(b)));
    for (const service of services) {
      const part = e.parts[service];
      if (!part) continue;
      zip.addReadStreamLazy(name(`${service}.json`), { mtime, compress: true }, open(part.url));
    }
    for (const service of services) {
      for (const file of e.parts[service]?.files ?? []) zip.addReadStreamLazy(name(file.name), { mtime, compress: false }, open(file.url));
    }
    zip.end();
    return output;
  }
}

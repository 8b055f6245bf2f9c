import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { pgStatement, sql } from '@msp/db';

export interface WorkerIdentityLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Advisory-lock namespace of worker identities (first key of the two-key form). */
const LOCK_NAMESPACE = 'media-processing.worker-identity';
const RECONNECT_MS = 5000;

/**
 * Who is running jobs: an identity that survives a restart plus a generation that does not.
 *
 * - `id`: `WORKER_ID` when set, else the host name. In Kubernetes the host name is the pod name,
 *   which a container restart (crash, OOM kill, `kill -9`) keeps; in Compose it is the container id.
 * - `generation`: a random UUID per boot.
 *
 * A job is leased to (id, generation). A worker that boots with the id of an earlier generation
 * knows that generation is dead and takes its running jobs back at once, without waiting for their
 * leases to expire. "Knows" rests on a PostgreSQL session advisory lock on the id, held on a
 * connection of its own for the life of the process: PostgreSQL releases it the moment the
 * connection of a killed process closes. A process that cannot take the lock (another live process
 * already uses this id: two workers on one host without WORKER_ID, or a copied WORKER_ID) runs under
 * a unique fallback id (`<id>~<generation prefix>`) and takes nothing back; the lease takes care of
 * the rest.
 */
export class WorkerIdentity {
  private client: pg.Client | null = null;
  private reconnect: NodeJS.Timeout | null = null;
  private closed = false;
  /** True while this process holds the id's lock: only then may it take back jobs of earlier generations. */
  owned = false;

  private constructor(
    readonly id: string,
    readonly generation: string,
    private readonly databaseUrl: string,
    private readonly logger: WorkerIdentityLogger,
  ) {}

  /** The id and generation, and the lock on the id when no live process holds it. */
  static async acquire(options: { databaseUrl: string; workerId?: string; logger: WorkerIdentityLogger }): Promise<WorkerIdentity> {
    const base = options.workerId ?? os.hostname();
    const generation = randomUUID();
    const identity = new WorkerIdentity(base, generation, options.databaseUrl, options.logger);
    const locked = await identity.lock().catch((err: unknown) => err as Error);
    if (locked === true) {
      options.logger.info({ workerId: base, generation }, 'worker identity taken: jobs left running by its earlier boots are taken back at once');
      return identity;
    }
    const fallback = new WorkerIdentity(`${base}~${generation.slice(0, 8)}`, generation, options.databaseUrl, options.logger);
    options.logger.warn(
      locked === false ? { workerId: base, fallback: fallback.id } : { err: locked, workerId: base, fallback: fallback.id },
      locked === false
        ? 'another live process holds this worker identity (set a distinct WORKER_ID per process); running under a fallback identity'
        : 'could not take the worker identity lock; running under a fallback identity',
    );
    return fallback;
  }

  /** A short, file-name-safe key of the id (the scratch folders of its jobs start with it). */
  get key(): string {
    return workerKey(this.id);
  }

  private async lock(): Promise<boolean> {
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      keepAlive: true,
      application_name: `media-worker ${this.id}`.slice(0, 63),
    });
    client.on('error', (err) => this.lost(client, err));
    try {
      await client.connect();
      const { rows } = await client.query<{ locked: boolean }>(
        pgStatement(sql`SELECT pg_try_advisory_lock(hashtext(${LOCK_NAMESPACE}), hashtext(${this.id})) AS locked`),
      );
      if (rows[0]?.locked === true) {
        this.client = client;
        this.owned = true;
        return true;
      }
    } catch (err) {
      await closeQuietly(client);
      throw err;
    }
    await closeQuietly(client);
    return false;
  }

  /** The lock's connection broke (database restart): reclaiming pauses until it is taken again. */
  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.owned = false;
    void closeQuietly(client);
    if (this.closed) return;
    this.logger.warn({ err, workerId: this.id }, 'worker identity lock lost; taking it again');
    this.scheduleRelock();
  }

  private scheduleRelock(): void {
    if (this.closed || this.reconnect) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      if (this.closed) return;
      this.lock().then(
        (locked) => {
          if (!locked) this.logger.warn({ workerId: this.id }, 'worker identity is held by another live process; not taking jobs back');
          else this.logger.info({ workerId: this.id }, 'worker identity lock taken again');
        },
        () => this.scheduleRelock(),
      );
    }, RECONNECT_MS);
    this.reconnect.unref();
  }

  /** Releases the lock (graceful stop): the next boot with this id takes it at once. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    const client = this.client;
    this.client = null;
    this.owned = false;
    if (client) await closeQuietly(client);
  }
}

export function workerKey(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 12);
}

/** Closes a connection this process gives up; an error closing it changes nothing (the lock goes with the connection). */
async function closeQuietly(client: pg.Client): Promise<void> {
  await client.end().catch(() => undefined); // see above: nothing to do about a failed close
}

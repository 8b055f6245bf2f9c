import pg from 'pg';
import type { JetStreamClient } from '@nats-io/jetstream';
import { OUTBOX_CHANNEL, OUTBOX_TABLE, PROCESSED_TABLE } from './sql.js';
import { eventMetrics, registerOutboxSource } from './metrics.js';

export interface RelayLogger {
  debug?(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface OutboxRelayOptions {
  databaseUrl: string;
  js: JetStreamClient;
  logger: RelayLogger;
  pollMs?: number;
  batchSize?: number;
  /** Published rows older than this are deleted (JetStream keeps the history). */
  retentionMs?: number;
  /**
   * processed_event rows (consumer de-duplication) older than this are deleted; keep it longer than
   * the streams' max age (7 days), so a replay can never meet an id that was forgotten. Default 14 days.
   */
  processedRetentionMs?: number;
}

interface OutboxRow {
  id: string;
  type: string;
  payload: unknown;
}

/**
 * Publishes committed outbox rows to JetStream in commit order, with the event id as the
 * message id (JetStream drops a re-publish after a crash between publish and mark). Rows are
 * claimed with FOR UPDATE SKIP LOCKED, so any number of replicas can relay at once.
 */
export class OutboxRelay {
  private readonly pool: pg.Pool;
  private listener: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = false;
  private again = false;
  private lastCleanup = 0;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly options: OutboxRelayOptions) {
    this.pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
    this.pool.on('error', (err) => options.logger.warn({ err }, 'outbox relay pool error'));
  }

  private unregisterMetrics: (() => void) | null = null;

  async start(): Promise<void> {
    await this.listen();
    this.unregisterMetrics = registerOutboxSource({ backlog: () => this.backlog() });
    this.schedule(0);
  }

  /** Rows not yet published and the age of the oldest (outbox_unpublished_events, ..._age_seconds). */
  async backlog(): Promise<{ count: number; oldestSeconds: number }> {
    const { rows } = await this.pool.query<{ count: number; oldest: number | null }>(
      `SELECT count(*)::int AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest
       FROM ${OUTBOX_TABLE} WHERE published_at IS NULL`,
    );
    return { count: rows[0]?.count ?? 0, oldestSeconds: rows[0]?.oldest ?? 0 };
  }

  /** Ask for a relay pass now (also triggered by NOTIFY at commit). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregisterMetrics?.();
    if (this.timer) clearTimeout(this.timer);
    await this.idle;
    // Stopping: a connection that fails to close is gone either way (both lines).
    await this.listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined); // see above
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl });
    client.on('notification', () => this.kick());
    client.on('error', (err) => {
      this.options.logger.warn({ err }, 'outbox listener lost; polling until it reconnects');
      this.listener = null;
      // listen() logs its own failures and retries; the catch only keeps a rejection from escaping.
      if (!this.stopped) setTimeout(() => void this.listen().catch(() => undefined), 1000);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = client;
    } catch (err) {
      this.options.logger.warn({ err }, 'outbox listener could not connect; polling');
      // The client never connected; closing it can only fail the same way.
      await client.end().catch(() => undefined);
      // listen() logs its own failures and retries; the catch only keeps a rejection from escaping.
      if (!this.stopped) setTimeout(() => void this.listen().catch(() => undefined), 1000);
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.idle = this.pass();
    }, delayMs);
  }

  private async pass(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    let more = false;
    try {
      more = await this.relayBatch();
      await this.cleanup();
    } catch (err) {
      this.options.logger.warn({ err }, 'outbox relay pass failed; will retry');
    } finally {
      this.running = false;
      const next = more || this.again ? 0 : (this.options.pollMs ?? 500);
      this.again = false;
      this.schedule(next);
    }
  }

  /** Returns true when a full batch went out (there may be more). */
  private async relayBatch(): Promise<boolean> {
    const batchSize = this.options.batchSize ?? 100;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, type, payload FROM ${OUTBOX_TABLE}
         WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batchSize],
      );
      const published: string[] = [];
      let failure: unknown = null;
      for (const row of rows) {
        try {
          await this.options.js.publish(row.type, JSON.stringify(row.payload), { msgID: row.id, timeout: 5000 });
          published.push(row.id);
          eventMetrics.published.inc({ type: row.type });
        } catch (err) {
          // Stop at the first failure so later events never overtake an earlier one.
          failure = err;
          break;
        }
      }
      if (published.length > 0) {
        await client.query(`UPDATE ${OUTBOX_TABLE} SET published_at = now() WHERE id = ANY($1::uuid[])`, [published]);
      }
      await client.query('COMMIT');
      if (failure) {
        this.options.logger.warn({ err: failure, pending: rows.length - published.length }, 'outbox publish failed; will retry');
        return false;
      }
      return rows.length === batchSize;
    } catch (err) {
      // The original error is rethrown below; a failed ROLLBACK (connection lost) ends the transaction anyway.
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private async cleanup(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < 10 * 60 * 1000) return;
    this.lastCleanup = now;
    const retentionMs = this.options.retentionMs ?? 3 * 24 * 60 * 60 * 1000;
    await this.pool.query(`DELETE FROM ${OUTBOX_TABLE} WHERE published_at IS NOT NULL AND published_at < now() - ($1::bigint * interval '1 millisecond')`, [
      retentionMs,
    ]);
    // Consumer de-duplication records of the same database, in batches (indexed by processed_at).
    const processedMs = this.options.processedRetentionMs ?? 14 * 24 * 60 * 60 * 1000;
    for (let round = 0; round < 20; round += 1) {
      const { rowCount } = await this.pool.query(
        `DELETE FROM ${PROCESSED_TABLE} WHERE ctid IN (
           SELECT ctid FROM ${PROCESSED_TABLE} WHERE processed_at < now() - ($1::bigint * interval '1 millisecond') LIMIT 5000)`,
        [processedMs],
      );
      if ((rowCount ?? 0) < 5000) break;
    }
  }
}

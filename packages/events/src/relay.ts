import pg from 'pg';
import type { JetStreamClient } from '@nats-io/jetstream';
import { pgStatement, sql } from '@msp/db';
import { OUTBOX_CHANNEL } from './sql.js';
import { eventMetrics, registerOutboxSource } from './metrics.js';
import { DurableWorker, type BatchOutcome } from './durable-worker.js';

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
  private readonly worker: DurableWorker;
  private lastCleanup = 0;
  private unregisterMetrics: (() => void) | null = null;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
    this.pool.on('error', (err) => options.logger.warn({ err }, 'outbox relay pool error'));
    this.worker = new DurableWorker({
      name: 'outbox-relay',
      logger: options.logger,
      pollMs: options.pollMs ?? 500,
      // NOTIFY at commit (writeOutbox) wakes the relay at once.
      notify: { databaseUrl: options.databaseUrl, channel: OUTBOX_CHANNEL },
      batch: async (ctx) => {
        const outcome = await this.relayBatch(ctx.signal);
        await this.cleanup();
        return outcome;
      },
      lag: async () => (await this.backlog()).oldestSeconds,
    });
  }

  async start(): Promise<void> {
    this.unregisterMetrics = registerOutboxSource({ backlog: () => this.backlog() });
    await this.worker.start();
  }

  /** Rows not yet published and the age of the oldest (outbox_unpublished_events, ..._age_seconds). */
  async backlog(): Promise<{ count: number; oldestSeconds: number }> {
    const { rows } = await this.pool.query<{ count: number; oldest: number | null }>(
      pgStatement(sql`SELECT count(*)::int AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest
                        FROM outbox_event WHERE published_at IS NULL`),
    );
    return { count: rows[0]?.count ?? 0, oldestSeconds: rows[0]?.oldest ?? 0 };
  }

  /** Ask for a relay pass now (also triggered by NOTIFY at commit). */
  kick(): void {
    this.worker.wake();
  }

  async stop(): Promise<void> {
    this.unregisterMetrics?.();
    await this.worker.stop();
    await this.pool.end().catch(() => undefined); // a pool that fails to close is gone either way
  }

  /** `more` when a full batch went out (there may be more). Stops early, keeping order, when `signal` aborts. */
  private async relayBatch(signal: AbortSignal): Promise<BatchOutcome> {
    const batchSize = this.options.batchSize ?? 100;
    const client = await this.pool.connect();
    try {
      await client.query(pgStatement(sql`BEGIN`));
      const { rows } = await client.query<OutboxRow>(
        pgStatement(sql`SELECT id, type, payload FROM outbox_event
                         WHERE published_at IS NULL ORDER BY seq LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`),
      );
      const published: string[] = [];
      let failure: unknown = null;
      for (const row of rows) {
        // Stop gave up waiting: commit what went out, leave the rest in order for the next relay.
        if (signal.aborted) break;
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
        await client.query(pgStatement(sql`UPDATE outbox_event SET published_at = now() WHERE id = ANY(${published}::uuid[])`));
      }
      await client.query(pgStatement(sql`COMMIT`));
      if (failure) {
        this.options.logger.warn({ err: failure, pending: rows.length - published.length }, 'outbox publish failed; will retry');
        return { done: published.length, failed: 1 };
      }
      return { done: published.length, more: rows.length === batchSize && published.length === rows.length };
    } catch (err) {
      // The original error is rethrown below; a failed ROLLBACK (connection lost) ends the transaction anyway.
      await client.query(pgStatement(sql`ROLLBACK`)).catch(() => undefined);
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
    await this.pool.query(
      pgStatement(sql`DELETE FROM outbox_event WHERE published_at IS NOT NULL AND published_at < now() - (${retentionMs}::bigint * interval '1 millisecond')`),
    );
    // Consumer de-duplication records of the same database, in batches (indexed by processed_at).
    const processedMs = this.options.processedRetentionMs ?? 14 * 24 * 60 * 60 * 1000;
    for (let round = 0; round < 20; round += 1) {
      const { rowCount } = await this.pool.query(
        pgStatement(sql`DELETE FROM processed_event WHERE ctid IN (
                          SELECT ctid FROM processed_event WHERE processed_at < now() - (${processedMs}::bigint * interval '1 millisecond') LIMIT 5000)`),
      );
      if ((rowCount ?? 0) < 5000) break;
    }
  }
}

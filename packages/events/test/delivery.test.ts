import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { dropDatabase, ensureDatabase, pgStatement, sql, type Sql } from '@msp/db';
import { startNatsServer, testInfra, waitFor, type NatsServerHandle } from '@msp/testing';
import {
  connectNats,
  createEnvelope,
  defineEvent,
  DurableConsumer,
  ensureStreams,
  OutboxRelay,
  writeOutbox,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '../src/index.js';

const Counted = defineEvent('social.counter.bumped.v1', z.object({ key: z.string(), seq: z.number().int() }));
const silent = { info() {}, warn() {}, error() {} };

/** A TransactionalClient over plain pg: the structural contract Prisma clients also meet. */
function pgDb(pool: pg.Pool): TransactionalClient {
  const exec = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    $executeRaw: async (q) => (await client.query(pgStatement(q))).rowCount ?? 0,
    $queryRaw: async <T>(q: Sql) => (await client.query(pgStatement(q))).rows as T,
  });
  return {
    ...exec(pool),
    async $transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(exec(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

let nats: NatsServerHandle;
let dbUrl: string;
let pool: pg.Pool;
let db: TransactionalClient;
let nc: NatsConnection;
let relay: OutboxRelay;
const consumers: DurableConsumer<SqlExecutor>[] = [];
let failuresLeft = 0;

function counterConsumer(name = 'counter') {
  const consumer = new DurableConsumer<SqlExecutor>({
    nc,
    db,
    logger: silent,
    service: 'catalog',
    name,
    from: 'social',
    backoffMs: [50],
    maxDeliver: 4,
  }).on(Counted, async (data, envelope, tx) => {
    if (data.key.startsWith('flaky') && failuresLeft > 0) {
      failuresLeft -= 1;
      throw new Error('transient');
    }
    // Deliberately not idempotent on its own: only the processed-event record prevents doubles.
    await tx.$executeRaw(
      sql`INSERT INTO counters (key, n, seqs) VALUES (${data.key}, 1, ARRAY[${data.seq}::int])
            ON CONFLICT (key) DO UPDATE SET n = counters.n + 1, seqs = counters.seqs || ${data.seq}::int`,
    );
    expect(envelope.producer).toBe('social');
  });
  consumers.push(consumer);
  return consumer;
}

async function emit(key: string, seq: number) {
  await db.$transaction((tx) => writeOutbox(tx, Counted, { key, seq }));
}

async function counter(key: string): Promise<{ n: number; seqs: number[] } | undefined> {
  const rows = await db.$queryRaw<Array<{ n: number; seqs: number[] }>>(sql`SELECT n, seqs FROM counters WHERE key = ${key}`);
  return rows[0];
}

beforeAll(async () => {
  nats = await startNatsServer();
  dbUrl = `${testInfra().postgresUrl}/t_events_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(dbUrl);
  pool = new pg.Pool({ connectionString: dbUrl });
  await pool.query(`
    CREATE TABLE outbox_event (id uuid PRIMARY KEY, seq bigserial UNIQUE, type text NOT NULL, payload jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(), published_at timestamptz(3));
    CREATE TABLE processed_event (consumer text NOT NULL, event_id uuid NOT NULL,
      processed_at timestamptz(3) NOT NULL DEFAULT now(), PRIMARY KEY (consumer, event_id));
    CREATE TABLE counters (key text PRIMARY KEY, n int NOT NULL, seqs int[] NOT NULL);`);
  db = pgDb(pool);
  nc = await connectNats(nats.url, 'events-test');
  await ensureStreams(await jetstreamManager(nc), 'social');
  relay = new OutboxRelay({ databaseUrl: dbUrl, js: jetstream(nc), logger: silent, pollMs: 100 });
  await relay.start();
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.stop()));
});

afterAll(async () => {
  await relay?.stop();
  await nc?.close();
  await pool?.end();
  await nats?.close();
  if (dbUrl) await dropDatabase(dbUrl);
});

describe('transactional outbox and durable consumer', () => {
  beforeEach(() => {
    failuresLeft = 0;
  });

  it('delivers each committed event once, in order', async () => {
    await counterConsumer().start();
    for (let seq = 1; seq <= 20; seq += 1) await emit('ordered', seq);
    const result = await waitFor(async () => ((await counter('ordered'))?.n === 20 ? counter('ordered') : undefined));
    expect(result?.seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('with concurrency and an order key, keeps the order per key while keys run side by side', async () => {
    let running = 0;
    let most = 0;
    const consumer = new DurableConsumer<SqlExecutor>({
      nc,
      db,
      logger: silent,
      service: 'catalog',
      name: 'keyed',
      from: 'social',
      concurrency: 6,
      orderKey: (envelope) => (envelope.data as { key: string }).key,
    }).on(Counted, async (data, _e, tx) => {
      running += 1;
      most = Math.max(most, running);
      // Later events of a key would overtake earlier ones here if the key did not hold them back.
      await new Promise((r) => setTimeout(r, ((data.seq * 7) % 5) * 4));
      await tx.$executeRaw(
        sql`INSERT INTO counters (key, n, seqs) VALUES (${data.key}, 1, ARRAY[${data.seq}::int])
            ON CONFLICT (key) DO UPDATE SET n = counters.n + 1, seqs = counters.seqs || ${data.seq}::int`,
      );
      running -= 1;
    });
    consumers.push(consumer);
    await consumer.start();
    for (let seq = 1; seq <= 10; seq += 1) for (const key of ['keyed-a', 'keyed-b', 'keyed-c']) await emit(key, seq);
    for (const key of ['keyed-a', 'keyed-b', 'keyed-c']) {
      const result = await waitFor(async () => ((await counter(key))?.n === 10 ? counter(key) : undefined));
      expect(result?.seqs, key).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    }
    expect(most).toBeGreaterThan(1);
  });

  it('in batch mode, handles what waits in one transaction, in stream order, once, and retries a failing event alone', async () => {
    const sizes: number[] = [];
    const consumer = new DurableConsumer<SqlExecutor>({ nc, db, logger: silent, service: 'catalog', name: 'batched', from: 'social', backoffMs: [50] }).onBatch(
      [Counted],
      async (events, tx) => {
        sizes.push(events.length);
        for (const e of events) {
          const data = e.data as { key: string; seq: number };
          if (data.key === 'batch-flaky' && failuresLeft > 0) {
            failuresLeft -= 1;
            throw new Error('transient');
          }
          await tx.$executeRaw(
            sql`INSERT INTO counters (key, n, seqs) VALUES (${data.key}, 1, ARRAY[${data.seq}::int])
            ON CONFLICT (key) DO UPDATE SET n = counters.n + 1, seqs = counters.seqs || ${data.seq}::int`,
          );
        }
      },
    );
    consumers.push(consumer);
    // Written while it is down, so they wait together.
    for (let seq = 1; seq <= 30; seq += 1) await emit(`batch-${seq % 3}`, seq);
    await new Promise((r) => setTimeout(r, 500));
    // Fails in its batch (rolled back, the others applied again alone) and once more alone.
    failuresLeft = 2;
    await emit('batch-flaky', 1);
    await consumer.start();
    for (const k of [0, 1, 2]) {
      const result = await waitFor(async () => ((await counter(`batch-${k}`))?.n === 10 ? counter(`batch-${k}`) : undefined));
      expect(result?.seqs).toEqual(Array.from({ length: 10 }, (_, i) => i * 3 + (k === 0 ? 3 : k)));
    }
    expect((await waitFor(() => counter('batch-flaky')))?.n).toBe(1);
    expect(failuresLeft).toBe(0);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    await counterConsumer().start();
    await expect(
      db.$transaction(async (tx) => {
        await writeOutbox(tx, Counted, { key: 'rolled-back', seq: 1 });
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    await emit('after-rollback', 1);
    await waitFor(() => counter('after-rollback'));
    expect(await counter('rolled-back')).toBeUndefined();
  });

  it('applies a re-delivered event (same id) only once', async () => {
    await counterConsumer().start();
    const envelope = createEnvelope(Counted, { key: 'dup', seq: 1 });
    const js = jetstream(nc);
    // Distinct message ids defeat JetStream's own de-duplication: the consumer must catch it.
    await js.publish(envelope.type, JSON.stringify(envelope), { msgID: `${envelope.id}-a` });
    await js.publish(envelope.type, JSON.stringify(envelope), { msgID: `${envelope.id}-b` });
    await emit('dup-marker', 1);
    await waitFor(() => counter('dup-marker'));
    expect((await counter('dup'))?.n).toBe(1);
  });

  it('retries a failing handler with backoff and then succeeds', async () => {
    failuresLeft = 2;
    await counterConsumer().start();
    await emit('flaky', 1);
    const result = await waitFor(() => counter('flaky'), { timeoutMs: 5000 });
    expect(result?.n).toBe(1);
    expect(failuresLeft).toBe(0);
  });

  it('dead-letters a poison message and goes on with the next', async () => {
    await counterConsumer().start();
    const js = jetstream(nc);
    await js.publish(Counted.type, JSON.stringify({ ...createEnvelope(Counted, { key: 'x', seq: 1 }), data: { key: 42 } }));
    await js.publish(Counted.type, 'not json at all');
    await emit('after-poison', 1);
    await waitFor(() => counter('after-poison'));
    const jsm = await jetstreamManager(nc);
    const dlq = await waitFor(async () => {
      const info = await jsm.streams.info('DLQ');
      return info.state.messages >= 2 ? info : undefined;
    });
    expect(dlq.state.messages).toBeGreaterThanOrEqual(2);
  });

  it('delivers events written while the consumer was down, once, after it restarts', async () => {
    const first = counterConsumer('restartable');
    await first.start();
    await emit('restart', 1);
    await waitFor(async () => (await counter('restart'))?.n === 1);
    await first.stop();
    for (let seq = 2; seq <= 5; seq += 1) await emit('restart', seq);
    await counterConsumer('restartable').start();
    const result = await waitFor(async () => ((await counter('restart'))?.n === 5 ? counter('restart') : undefined));
    expect(result?.seqs).toEqual([1, 2, 3, 4, 5]);
  });

  it('survives a NATS restart: events written while the broker is down arrive once', async () => {
    await counterConsumer('broker-restart').start();
    await emit('broker', 1);
    await waitFor(async () => (await counter('broker'))?.n === 1);
    await nats.stop();
    for (let seq = 2; seq <= 4; seq += 1) await emit('broker', seq);
    const pending = await pool.query('SELECT count(*)::int AS n FROM outbox_event WHERE published_at IS NULL');
    expect(pending.rows[0].n).toBeGreaterThan(0);
    await nats.start();
    for (let seq = 5; seq <= 6; seq += 1) await emit('broker', seq);
    const result = await waitFor(async () => ((await counter('broker'))?.n === 6 ? counter('broker') : undefined), {
      timeoutMs: 20_000,
      message: 'events did not arrive after the NATS restart',
    });
    expect(result?.seqs).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('runs long jobs outside a transaction, keeps them alive with heartbeats, and records them once', async () => {
    const runs: number[] = [];
    const consumer = new DurableConsumer<SqlExecutor>({
      nc,
      db,
      logger: silent,
      service: 'media-processing',
      name: 'long-jobs',
      from: 'social',
      ackWaitMs: 1500,
      backoffMs: [50],
    }).onLongRunning(Counted, async (data) => {
      if (data.key !== 'long') return;
      runs.push(data.seq);
      // Longer than ackWait: without heartbeats JetStream would hand the message out again.
      await new Promise((r) => setTimeout(r, 3000));
      await db.$executeRaw(sql`INSERT INTO counters (key, n, seqs) VALUES ('long', 1, ARRAY[${data.seq}::int])`);
    });
    consumers.push(consumer);
    await consumer.start();
    await emit('long', 1);
    const result = await waitFor(() => counter('long'), { timeoutMs: 10_000 });
    expect(result).toEqual({ n: 1, seqs: [1] });
    expect(runs).toEqual([1]);
  });

  it('redelivers a long job whose worker died before finishing, and completes it', async () => {
    // The first worker has its own connection; closing it mid-job is what a killed process looks
    // like to JetStream: no ack, no nak, no more heartbeats.
    const workerConnection = await connectNats(nats.url, 'doomed-worker');
    let releaseDoomed: () => void = () => undefined;
    const doomedJobStarted = new Promise<void>((started) => {
      const doomed = new DurableConsumer<SqlExecutor>({
        nc: workerConnection,
        db,
        logger: silent,
        service: 'media-processing',
        name: 'crashy-jobs',
        from: 'social',
        ackWaitMs: 1000,
      }).onLongRunning(Counted, async (data) => {
        if (data.key !== 'crashy') return;
        started();
        await new Promise<void>((r) => {
          releaseDoomed = r;
        });
        throw new Error('the process is gone');
      });
      consumers.push(doomed);
      void doomed.start();
    });
    await emit('crashy', 7);
    await doomedJobStarted;
    await workerConnection.close();
    const survivor = new DurableConsumer<SqlExecutor>({
      nc,
      db,
      logger: silent,
      service: 'media-processing',
      name: 'crashy-jobs',
      from: 'social',
      ackWaitMs: 1000,
    }).onLongRunning(Counted, async (data) => {
      if (data.key !== 'crashy') return;
      await db.$executeRaw(sql`INSERT INTO counters (key, n, seqs) VALUES ('crashy', 1, ARRAY[${data.seq}::int])`);
    });
    consumers.push(survivor);
    await survivor.start();
    const result = await waitFor(() => counter('crashy'), { timeoutMs: 15_000, message: 'the job was not redelivered' });
    releaseDoomed();
    expect(result).toEqual({ n: 1, seqs: [7] });
  });

  it('stops at once when stopped right after it started (a pod terminated as it comes up)', async () => {
    for (let i = 0; i < 5; i += 1) {
      const consumer = counterConsumer(`stopped-early-${i}`);
      await consumer.start();
      const started = Date.now();
      // No tick in between: stop() runs while the loop is still making its subscription.
      await consumer.stop();
      expect(Date.now() - started).toBeLessThan(2_000);
    }
  });
});

import type { NatsConnection } from '@nats-io/transport-node';
import { headers, nanos } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { ServiceName } from '@msp/contracts';
import { EnvelopeSchema, type EventDefinition, type EventEnvelope } from './envelope.js';
import { DLQ_STREAM, ensureStreamOf, streamNameFor } from './streams.js';
import { sql } from '@msp/db';
import type { SqlExecutor, TransactionalClient } from './sql.js';
import { eventMetrics, registerConsumerSource } from './metrics.js';
import { eventContext } from './context.js';
import { SpanKind, withSpan } from '@msp/telemetry';
import type { RelayLogger } from './relay.js';

export type EventHandler<T, Tx extends SqlExecutor> = (data: T, envelope: EventEnvelope<T>, tx: Tx) => Promise<void>;

/** A handler for work too long for a database transaction (media processing): it runs outside one. */
export type LongRunningHandler<T> = (data: T, envelope: EventEnvelope<T>) => Promise<void>;

/**
 * A handler of many events in one transaction (`onBatch`): the events not processed before, their
 * payloads validated, in stream order.
 */
export type BatchHandler<Tx extends SqlExecutor> = (events: EventEnvelope<unknown>[], tx: Tx) => Promise<void>;

interface Registered<Tx extends SqlExecutor> {
  def: EventDefinition<unknown>;
  handle?: EventHandler<unknown, Tx>;
  longRunning?: LongRunningHandler<unknown>;
}

export interface ConsumerOptions<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: RelayLogger;
  /** The consuming service. */
  service: ServiceName;
  /** Names the durable consumer together with the service, e.g. `user-projection`. */
  name: string;
  /** The producing service whose stream is read. */
  from: ServiceName;
  /** Delivery attempts before a message is dead-lettered. */
  maxDeliver?: number;
  /** Redelivery delays in ms by attempt; the last one repeats. */
  backoffMs?: number[];
  /** Messages handled at the same time (1 keeps the stream's order). */
  concurrency?: number;
  /**
   * With `concurrency` > 1: messages with the same key (e.g. one resource) are handled one after
   * the other in stream order, others at the same time. A message without a key (null) or with an
   * unparsable body is not ordered. A failed message is retried later, after its successors.
   */
  orderKey?: (envelope: EventEnvelope<unknown>) => string | null;
  ackWaitMs?: number;
}

/**
 * A durable JetStream consumer that handles each event in a database transaction together with
 * the record of its id, acknowledges only after that commit, skips ids already processed,
 * retries failures with backoff and dead-letters messages it can never handle.
 */
export class DurableConsumer<Tx extends SqlExecutor> {
  private readonly handlers = new Map<string, Registered<Tx>>();
  private batchHandler: { handle: BatchHandler<Tx>; max: number } | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private current: { stop(): void; close(): Promise<void | Error> } | null = null;
  readonly durable: string;

  constructor(private readonly options: ConsumerOptions<Tx>) {
    this.durable = `${options.service}--${options.name}`;
  }

  on<T>(def: EventDefinition<T>, handle: EventHandler<T, Tx>): this {
    if (def.producer !== this.options.from) {
      throw new Error(`${def.type} is not produced by ${this.options.from}`);
    }
    this.handlers.set(def.type, { def: def as EventDefinition<unknown>, handle: handle as EventHandler<unknown, Tx> });
    return this;
  }

  /**
   * Registers a handler that runs OUTSIDE a transaction, for jobs that take longer than a
   * transaction should stay open. While it runs, the message is kept in progress with `working()`
   * heartbeats, so a live worker is never redelivered but a killed one is (after ackWait). The
   * event id is recorded as processed only after the handler succeeds; the handler must therefore
   * be idempotent (re-running it after a crash must converge), e.g. deterministic object keys.
   */
  onLongRunning<T>(def: EventDefinition<T>, handle: LongRunningHandler<T>): this {
    if (def.producer !== this.options.from) {
      throw new Error(`${def.type} is not produced by ${this.options.from}`);
    }
    this.handlers.set(def.type, { def: def as EventDefinition<unknown>, longRunning: handle as LongRunningHandler<unknown> });
    return this;
  }

  /**
   * Batch mode, for high-volume consumers whose work per event is one row or a few: the messages
   * waiting (up to `max`) are handled together, one batch after the other, in ONE transaction with
   * the record of their ids (one statement), then acknowledged; stream order is kept (one batch at
   * a time). A batch that fails is handled again message by message, so one bad event is retried
   * and dead-lettered alone. Replaces `on`/`concurrency` for the types given.
   */
  onBatch(defs: EventDefinition<unknown>[], handle: BatchHandler<Tx>, max = 500): this {
    for (const def of defs) {
      if (def.producer !== this.options.from) throw new Error(`${def.type} is not produced by ${this.options.from}`);
      this.handlers.set(def.type, { def });
    }
    this.batchHandler = { handle, max };
    return this;
  }

  private unregisterMetrics: (() => void) | null = null;

  async start(): Promise<void> {
    await this.ensureConsumer();
    this.loop = this.run();
    this.unregisterMetrics = registerConsumerSource(this);
  }

  /** The durable consumer's numbers on the server, read at scrape time (events_consumer_* gauges). */
  async lag(): Promise<{ pending: number; ackPending: number; redelivered: number; deadLetters: number }> {
    const jsm = await jetstreamManager(this.options.nc, { timeout: 1000, checkAPI: false });
    const info = await jsm.consumers.info(streamNameFor(this.options.from), this.durable);
    const subject = `dlq.${this.durable}`;
    const dlq = await jsm.streams.info(DLQ_STREAM, { subjects_filter: subject }).catch(() => undefined); // no dead letters yet: the DLQ stream may not exist, the figure is then 0
    return {
      pending: info.num_pending,
      ackPending: info.num_ack_pending,
      redelivered: info.num_redelivered,
      deadLetters: dlq?.state.subjects?.[subject] ?? 0,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregisterMetrics?.();
    this.current?.stop();
    await this.loop;
  }

  private async ensureConsumer(): Promise<void> {
    const jsm = await jetstreamManager(this.options.nc);
    const stream = streamNameFor(this.options.from);
    await ensureStreamOf(jsm, this.options.from);
    const config = {
      durable_name: this.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${this.options.from}.>`,
      ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
      // Redelivery is counted by us (dead-letter after maxDeliver); the server keeps trying otherwise.
      max_deliver: -1,
      max_ack_pending: 1000,
    };
    try {
      await jsm.consumers.info(stream, this.durable);
      await jsm.consumers.update(stream, this.durable, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
    } catch {
      await jsm.consumers.add(stream, config);
    }
  }

  private async run(): Promise<void> {
    const js = jetstream(this.options.nc);
    const stream = streamNameFor(this.options.from);
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    while (!this.stopped) {
      try {
        const consumer = await js.consumers.get(stream, this.durable);
        const messages = await consumer.consume({ max_messages: this.batchHandler ? this.batchHandler.max * 2 : Math.max(10, concurrency * 2) });
        this.current = messages;
        // stop() may have run while the subscription was being made: it could not stop this one.
        if (this.stopped) {
          messages.stop();
          break;
        }
        if (this.batchHandler) {
          await this.consumeBatches(messages, this.batchHandler);
          continue;
        }
        const inFlight = new Set<Promise<void>>();
        const chains = new Map<string, Promise<void>>();
        for await (const msg of messages) {
          const key = this.orderKeyOf(msg);
          const before = key === null ? undefined : chains.get(key);
          const task: Promise<void> = (before ? before.then(() => this.process(msg)) : this.process(msg))
            .catch((err) => {
              this.options.logger.error({ err, consumer: this.durable }, 'event processing crashed; left for redelivery');
            })
            .finally(() => {
              inFlight.delete(task);
              if (key !== null && chains.get(key) === task) chains.delete(key);
            });
          if (key !== null) chains.set(key, task);
          inFlight.add(task);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
          if (this.stopped) break;
        }
        await Promise.all(inFlight);
      } catch (err) {
        if (this.stopped) break;
        this.options.logger.warn({ err, consumer: this.durable }, 'consumer interrupted; resuming');
        await new Promise((r) => setTimeout(r, 1000));
        await this.ensureConsumer().catch((ensureErr: unknown) =>
          this.options.logger.warn({ err: ensureErr, consumer: this.durable }, 'consumer could not be re-created; retrying on the next loop'),
        );
      }
    }
  }

  /**
   * Batch mode: messages are buffered as they arrive; one flush at a time takes what has gathered
   * (a setImmediate lets a burst land first), so batches grow under load and stay one message when idle.
   */
  private async consumeBatches(messages: AsyncIterable<JsMsg>, batch: { handle: BatchHandler<Tx>; max: number }): Promise<void> {
    const buffer: JsMsg[] = [];
    let flushing: Promise<void> | null = null;
    const kick = () => {
      if (flushing) return;
      flushing = (async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        try {
          while (buffer.length > 0) await this.processBatch(buffer.splice(0, batch.max), batch.handle);
        } catch (err) {
          this.options.logger.error({ err, consumer: this.durable }, 'event batch crashed; left for redelivery');
        } finally {
          flushing = null;
          if (buffer.length > 0 && !this.stopped) kick();
        }
      })();
    };
    for await (const msg of messages) {
      buffer.push(msg);
      kick();
      if (this.stopped) break;
    }
    // Stopping: what was taken finishes; messages still buffered are redelivered after ackWait.
    while (flushing) await flushing;
  }

  private async processBatch(msgs: JsMsg[], handle: BatchHandler<Tx>): Promise<void> {
    const events: { msg: JsMsg; envelope: EventEnvelope<unknown> }[] = [];
    for (const msg of msgs) {
      let envelope: EventEnvelope<unknown>;
      try {
        envelope = EnvelopeSchema.parse(msg.json()) as EventEnvelope<unknown>;
      } catch (err) {
        await this.deadLetter(msg, 'unknown', `malformed envelope: ${(err as Error).message}`);
        continue;
      }
      const registered = this.handlers.get(envelope.type);
      if (!registered) {
        msg.ack();
        continue;
      }
      const parsed = registered.def.schema.safeParse(envelope.data);
      if (!parsed.success) {
        await this.deadLetter(msg, envelope.type, `invalid payload: ${parsed.error.message}`);
        continue;
      }
      events.push({ msg, envelope: { ...envelope, data: parsed.data } });
    }
    if (events.length === 0) return;
    try {
      await this.options.db.$transaction(
        async (tx) => {
          const fresh = await tx.$queryRaw<{ id: string }[]>(
            sql`INSERT INTO processed_event (consumer, event_id, processed_at)
                SELECT ${this.durable}, unnest(${events.map((e) => e.envelope.id)}::uuid[]), now()
                ON CONFLICT DO NOTHING RETURNING event_id::text AS id`,
          );
          const ids = new Set(fresh.map((r) => r.id));
          const todo = events.filter((e) => ids.delete(e.envelope.id.toLowerCase())).map((e) => e.envelope);
          if (todo.length > 0) await handle(todo, tx);
        },
        { timeout: 30_000, maxWait: 10_000 },
      );
    } catch (err) {
      if (events.length > 1) {
        // Alone, each is retried (or dead-lettered) on its own count.
        for (const e of events) await this.processBatch([e.msg], handle);
        return;
      }
      await this.retryOrDeadLetter(events[0]!.msg, events[0]!.envelope, err);
      return;
    }
    for (const e of events) {
      e.msg.ack();
      eventMetrics.consumed.inc({ consumer: this.durable, type: e.envelope.type, outcome: 'ok' });
    }
  }

  private orderKeyOf(msg: JsMsg): string | null {
    if (!this.options.orderKey) return null;
    try {
      return this.options.orderKey(EnvelopeSchema.parse(msg.json()) as EventEnvelope<unknown>);
    } catch {
      return null;
    }
  }

  private async process(msg: JsMsg): Promise<void> {
    let envelope: EventEnvelope<unknown>;
    try {
      envelope = EnvelopeSchema.parse(msg.json()) as EventEnvelope<unknown>;
    } catch (err) {
      await this.deadLetter(msg, 'unknown', `malformed envelope: ${(err as Error).message}`);
      return;
    }
    const registered = this.handlers.get(envelope.type);
    if (!registered) {
      msg.ack();
      return;
    }
    // The handling continues the producer's trace (envelope.traceparent) and runs in the event's
    // request context (correlation id), so its logs, calls and events can be followed.
    await eventContext().run(envelope, () =>
      withSpan(
        `${envelope.type} process`,
        {
          kind: SpanKind.CONSUMER,
          carrier: envelope,
          attributes: {
            'messaging.system': 'nats',
            'messaging.destination.name': msg.subject,
            'messaging.consumer.group.name': this.durable,
            'messaging.message.id': envelope.id,
          },
        },
        () => this.handle(msg, registered, envelope),
      ),
    );
  }

  private async handle(msg: JsMsg, registered: Registered<Tx>, envelope: EventEnvelope<unknown>): Promise<void> {
    const parsed = registered.def.schema.safeParse(envelope.data);
    if (!parsed.success) {
      await this.deadLetter(msg, envelope.type, `invalid payload: ${parsed.error.message}`);
      return;
    }
    try {
      const event = { ...envelope, data: parsed.data };
      if (registered.longRunning) {
        await this.runLongRunning(msg, registered.longRunning, event);
      } else {
        const handle = registered.handle!;
        await this.options.db.$transaction(
          async (tx) => {
            const inserted = await tx.$executeRaw(
              sql`INSERT INTO processed_event (consumer, event_id, processed_at) VALUES (${this.durable}, ${envelope.id}::uuid, now()) ON CONFLICT DO NOTHING`,
            );
            if (inserted === 0) return;
            await handle(parsed.data, event, tx);
          },
          { timeout: 30_000, maxWait: 10_000 },
        );
      }
      msg.ack();
      eventMetrics.consumed.inc({ consumer: this.durable, type: envelope.type, outcome: 'ok' });
      this.options.logger.debug?.({ consumer: this.durable, type: envelope.type, eventId: envelope.id }, 'event handled');
    } catch (err) {
      await this.retryOrDeadLetter(msg, envelope, err);
    }
  }

  /** A handling that threw: retried with backoff (a nak with delay), or dead-lettered after `maxDeliver`. */
  private async retryOrDeadLetter(msg: JsMsg, envelope: EventEnvelope<unknown>, err: unknown): Promise<void> {
    const attempt = msg.info.deliveryCount;
    const maxDeliver = this.options.maxDeliver ?? 8;
    eventMetrics.consumed.inc({ consumer: this.durable, type: envelope.type, outcome: 'error' });
    if (attempt >= maxDeliver) {
      await this.deadLetter(msg, envelope.type, `failed ${attempt} times: ${(err as Error).message}`);
      return;
    }
    const backoff = this.options.backoffMs ?? [200, 1000, 2000, 5000, 10_000, 30_000];
    const delay = backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 1000;
    this.options.logger.warn(
      { err, consumer: this.durable, type: envelope.type, attempt, requestId: envelope.correlationId ?? envelope.id },
      'event handling failed; retrying',
    );
    msg.nak(delay);
  }

  private async runLongRunning(msg: JsMsg, handle: LongRunningHandler<unknown>, event: EventEnvelope<unknown>): Promise<void> {
    const done = await this.options.db.$queryRaw<unknown[]>(
      sql`SELECT 1 FROM processed_event WHERE consumer = ${this.durable} AND event_id = ${event.id}::uuid`,
    );
    if (done.length > 0) return;
    const heartbeatMs = Math.max(1000, Math.floor((this.options.ackWaitMs ?? 30_000) / 3));
    const heartbeat = setInterval(() => msg.working(), heartbeatMs);
    try {
      await handle(event.data, event);
    } finally {
      clearInterval(heartbeat);
    }
    await this.options.db.$executeRaw(
      sql`INSERT INTO processed_event (consumer, event_id, processed_at) VALUES (${this.durable}, ${event.id}::uuid, now()) ON CONFLICT DO NOTHING`,
    );
  }

  private async deadLetter(msg: JsMsg, type: string, reason: string): Promise<void> {
    // NATS header values are single-line.
    const oneLine = reason.replace(/[\r\n]+/g, ' ').slice(0, 1000);
    try {
      const h = headers();
      h.set('x-dlq-reason', oneLine);
      h.set('x-dlq-consumer', this.durable);
      h.set('x-dlq-subject', msg.subject);
      await jetstream(this.options.nc).publish(`dlq.${this.durable}`, msg.data, { headers: h });
      // No reason text: nats-server before 2.10 does not read `+TERM <reason>` as a termination and
      // would redeliver the message; the reason travels in the dead letter's headers and the log.
      msg.term();
      eventMetrics.deadLettered.inc({ consumer: this.durable, type });
      this.options.logger.error({ consumer: this.durable, type, reason: oneLine }, 'event dead-lettered');
    } catch (err) {
      // Could not park it: leave it for redelivery rather than lose it.
      this.options.logger.warn({ err }, 'dead-letter publish failed');
      msg.nak(5000);
    }
  }
}

import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { ServiceName } from '@msp/contracts';
import { EnvelopeSchema, ensureStreamOf, streamNameFor, type EventDefinition, type EventEnvelope } from '@msp/events';
import type { Infrastructure } from '@msp/runtime';

type JetStreamClient = Infrastructure<unknown>['js'];
type Consumer = Awaited<ReturnType<JetStreamClient['consumers']['get']>>;
type Messages = Awaited<ReturnType<Consumer['consume']>>;

/** A consumer whose process died is removed by NATS after this long. */
const INACTIVE_THRESHOLD_MS = 10 * 60_000;

export type FeedHandler<T> = (data: T, envelope: EventEnvelope<T>) => Promise<void> | void;

interface Registered {
  def: EventDefinition<unknown>;
  handle: FeedHandler<unknown>;
}

export interface OrderedEventFeedOptions {
  js: JetStreamClient;
  logger: FastifyBaseLogger;
  from: ServiceName;
  /** Where a new feed starts: only new events, or those of the last `lookbackMs`. */
  start: { newOnly: true } | { lookbackMs: number };
}

/**
 * Every replica's own, in-order view of some events of a producer's stream: a consumer named for
 * this process (`notification--rt-<id>`), without acks, read by this process alone, so each
 * replica sees every event in stream order. It is deleted on stop and expires by itself 10 minutes
 * after its process died. The handlers only touch idempotent state (Redis compare-and-set, local
 * sockets), so the processed-event bookkeeping of DurableConsumer is not needed.
 *
 * Not a client-side "ordered consumer": those live in server memory, and after a NATS restart the
 * client's recreation did not resume delivery (seen with nats-server 2.9). This consumer is stored
 * with the stream, survives the restart, and is recreated from the last sequence seen otherwise.
 */
export class OrderedEventFeed {
  private readonly handlers = new Map<string, Registered>();
  private readonly name = `notification--rt-${randomUUID()}`;
  private stopped = false;
  private lastSeq = 0;
  private messages: Messages | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly options: OrderedEventFeedOptions) {}

  on<T>(def: EventDefinition<T>, handle: FeedHandler<T>): this {
    if (def.producer !== this.options.from) throw new Error(`${def.type} is not produced by ${this.options.from}`);
    this.handlers.set(def.type, { def: def as EventDefinition<unknown>, handle: handle as FeedHandler<unknown> });
    return this;
  }

  get isRunning(): boolean {
    return this.loop !== null && !this.stopped;
  }

  /** Resolves once the consumer exists, so no event published after start() is missed. */
  async start(): Promise<void> {
    await ensureStreamOf(await this.options.js.jetstreamManager(), this.options.from);
    await this.ensureConsumer();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.messages?.stop();
    await this.loop;
    try {
      await (await this.options.js.jetstreamManager()).consumers.delete(this.stream, this.name);
    } catch {
      // Unreachable NATS: the consumer expires by itself (inactive_threshold).
    }
  }

  private get stream(): string {
    return streamNameFor(this.options.from);
  }

  private async ensureConsumer(): Promise<void> {
    const jsm = await this.options.js.jetstreamManager();
    try {
      await jsm.consumers.info(this.stream, this.name);
      return;
    } catch {
      // Not there (first start, or lost): create it at the right position.
    }
    const { start } = this.options;
    const types = [...this.handlers.keys()];
    const position =
      this.lastSeq > 0
        ? { deliver_policy: 'by_start_sequence' as const, opt_start_seq: this.lastSeq + 1 }
        : 'newOnly' in start
          ? { deliver_policy: 'new' as const }
          : { deliver_policy: 'by_start_time' as const, opt_start_time: new Date(Date.now() - start.lookbackMs).toISOString() };
    await jsm.consumers.add(this.stream, {
      durable_name: this.name,
      ack_policy: 'none',
      // One filter subject: several (filter_subjects) need nats-server 2.10, and 2.9 runs here.
      filter_subject: types.length === 1 && types[0] ? types[0] : `${this.options.from}.>`,
      inactive_threshold: INACTIVE_THRESHOLD_MS * 1_000_000,
      ...position,
    });
  }

  private async run(): Promise<void> {
    let first = true;
    while (!this.stopped) {
      try {
        if (!first) await this.ensureConsumer();
        first = false;
        const consumer = await this.options.js.consumers.get(this.stream, this.name);
        this.messages = await consumer.consume({ max_messages: 100 });
        for await (const msg of this.messages) {
          this.lastSeq = msg.seq;
          await this.handle(msg);
          if (this.stopped) break;
        }
      } catch (err) {
        if (this.stopped) break;
        this.options.logger.warn({ err, from: this.options.from }, 'realtime event feed interrupted; resuming');
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  private async handle(msg: { json<T>(): T }): Promise<void> {
    let raw: unknown;
    try {
      raw = msg.json<unknown>();
    } catch {
      return;
    }
    const envelope = EnvelopeSchema.safeParse(raw);
    if (!envelope.success) return;
    const registered = this.handlers.get(envelope.data.type);
    if (!registered) return;
    const data = registered.def.schema.safeParse(envelope.data.data);
    if (!data.success) {
      this.options.logger.error({ type: envelope.data.type, eventId: envelope.data.id }, 'event payload does not match its definition; skipped');
      return;
    }
    try {
      await registered.handle(data.data, { ...(envelope.data as EventEnvelope<unknown>), data: data.data });
    } catch (err) {
      // The next event carries a newer state; blocking the feed on one failure would hold them all.
      this.options.logger.error({ err, type: envelope.data.type, eventId: envelope.data.id }, 'realtime event handling failed');
    }
  }
}

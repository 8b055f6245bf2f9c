import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { MessageEvent, NotificationEvent } from '@msp/contracts';
import type { NatsConnection } from '@msp/events';
import { USER_QUEUES } from './destinations.js';
import type { SessionRegistry } from './session.registry.js';

type Subscription = ReturnType<NatsConnection['subscribe']>;

/**
 * Core NATS subjects (outside every JetStream stream, so nothing is stored) on which any replica
 * asks all replicas to deliver to a user's sessions. Every replica subscribes without a queue group,
 * so each one sees every message and acts on the sockets it holds.
 */
export const FANOUT_SUBJECT_PREFIX = 'notification-rt.user';

const FanoutMessageSchema = z.object({ type: z.literal('deliver'), key: z.string().min(1), body: z.string() });
type FanoutMessage = z.infer<typeof FanoutMessageSchema>;

/**
 * The internal push API of the realtime endpoint for the notification and messaging features
 * (WS-3, WS-4): their events are handled once, by whichever replica's durable consumer gets them,
 * and this carries the push to the replicas that hold the recipients' sockets.
 */
export class RealtimeFanout {
  private subscription: Subscription | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly registry: SessionRegistry,
    private readonly logger: FastifyBaseLogger,
  ) {}

  get isListening(): boolean {
    return this.subscription !== null && !this.subscription.isClosed() && !this.nc.isClosed();
  }

  start(): void {
    const sub = this.nc.subscribe(`${FANOUT_SUBJECT_PREFIX}.*`);
    this.subscription = sub;
    this.loop = (async () => {
      for await (const msg of sub) {
        const userId = Number(msg.subject.slice(FANOUT_SUBJECT_PREFIX.length + 1));
        if (!Number.isSafeInteger(userId) || userId <= 0) continue;
        let parsed: FanoutMessage;
        try {
          parsed = FanoutMessageSchema.parse(msg.json());
        } catch (err) {
          this.logger.warn({ err, subject: msg.subject }, 'ignored a malformed realtime fan-out message');
          continue;
        }
        this.registry.deliver(userId, parsed.key, parsed.body);
      }
    })().catch((err: unknown) => this.logger.error({ err }, 'realtime fan-out stopped'));
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    await this.loop;
  }

  /** WS-3: a Notification event to all of the recipient's sessions. */
  sendNotificationEvent(userId: number, event: NotificationEvent): void {
    this.publish(userId, { type: 'deliver', key: USER_QUEUES.notifications, body: JSON.stringify(event) });
  }

  /** WS-4: a Message event to all sessions of each given user (both participants). */
  sendMessageEvent(userIds: readonly number[], event: MessageEvent): void {
    const body = JSON.stringify(event);
    for (const userId of new Set(userIds)) this.publish(userId, { type: 'deliver', key: USER_QUEUES.messages, body });
  }

  private publish(userId: number, message: FanoutMessage): void {
    this.nc.publish(`${FANOUT_SUBJECT_PREFIX}.${userId}`, JSON.stringify(message));
  }
}

import { sql } from '@msp/db';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { ProviderEventBody } from './provider-events.js';

export interface ClaimedEvent {
  id: string;
  type: string;
  createdAt: Date;
  payload: unknown;
  attempts: number;
}

/** The SUB-5 inbox (`provider_events`). */
/** What WebhooksService needs of this repository (unit tests give fakes). */
export type WebhookEventsStore = Pick<WebhooksRepository, 'insert'>;

export class WebhooksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One unit of work: claiming, applying and marking an event commit or roll back together. */
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>, options?: { timeout?: number; maxWait?: number }): Promise<T> {
    return this.prisma.$transaction(work, options);
  }

  /** Stores the event once by its id; false when that id was already stored (a redelivery). */
  async insert(event: ProviderEventBody): Promise<boolean> {
    const { count } = await this.prisma.providerEvent.createMany({
      data: [{ id: event.id, type: event.type, createdAt: new Date(event.created * 1000), payload: event as Prisma.InputJsonValue }],
      skipDuplicates: true,
    });
    return count === 1;
  }

  /**
   * The oldest due event, locked for this transaction; replicas skip each other's (SKIP LOCKED).
   * Oldest first, so events that arrive together apply in the provider's order.
   */
  async claimNext(tx: Prisma.TransactionClient): Promise<ClaimedEvent | null> {
    const rows = await tx.$queryRaw<ClaimedEvent[]>(
      sql`SELECT id, type, created_at AS "createdAt", payload, attempts FROM provider_events
       WHERE processed_at IS NULL AND next_attempt_at <= now()
       ORDER BY created_at, received_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    return rows[0] ?? null;
  }

  async markProcessed(tx: Prisma.TransactionClient, id: string, outcome: string): Promise<void> {
    await tx.providerEvent.update({ where: { id }, data: { processedAt: new Date(), outcome, attempts: { increment: 1 }, lastError: null } });
  }

  /** A failed attempt: kept unprocessed and due again after `delayMs`. */
  async markFailed(id: string, error: string, delayMs: number): Promise<void> {
    await this.prisma.providerEvent.update({
      where: { id },
      data: { attempts: { increment: 1 }, lastError: error.slice(0, 1000), nextAttemptAt: new Date(Date.now() + delayMs) },
    });
  }

  /** Forgets processed events received before `before`; unprocessed ones are always kept. */
  async purgeProcessed(before: Date): Promise<number> {
    const { count } = await this.prisma.providerEvent.deleteMany({ where: { processedAt: { not: null }, receivedAt: { lt: before } } });
    return count;
  }
}

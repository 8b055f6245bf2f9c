import { DurableWorker, type Logger } from '@msp/runtime';
import type { SubscriptionSync } from '../subscriptions/subscription-sync.service.js';
import { changeOf, ProviderEventSchema } from './provider-events.js';
import type { WebhooksRepository } from './webhooks.repository.js';

const MAX_BACKOFF_MS = 10 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;

/** Retry delay after `attempts` failures: 1 s, 2 s, 4 s, ... capped at 10 min; never given up. */
export function backoffMs(attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Applies stored SUB-5 events (the `provider_events` inbox). Each event is claimed, applied and
 * marked processed in ONE transaction, so a crash or restart at any point leaves it either fully
 * applied or still due, and it is applied exactly once. Woken at once by the receipt in this
 * process, and polls for events received by other replicas or left by a previous run.
 */
export class WebhookWorker {
  private readonly worker: DurableWorker;
  private lastPurge = 0;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly sync: SubscriptionSync,
    private readonly logger: Logger,
    pollMs: number,
    private readonly retentionMs: number,
  ) {
    // One event a batch, batches until none is due; then every `pollMs` or at `kick()`.
    this.worker = new DurableWorker({
      name: 'billing-webhooks',
      logger,
      pollMs,
      batch: async () => {
        await this.purge();
        const result = await this.handleNext();
        return { done: result === 'done' ? 1 : 0, failed: result === 'failed' ? 1 : 0, more: result !== 'none' };
      },
    });
  }

  start(): void {
    // Without `notify` start() resolves at once and never rejects.
    void this.worker.start();
  }

  /** Waits for the event in hand; what is left stays stored for the next run. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  kick(): void {
    this.worker.wake();
  }

  private async purge(): Promise<void> {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    try {
      const purged = await this.repo.purgeProcessed(new Date(Date.now() - this.retentionMs));
      if (purged > 0) this.logger.info({ purged }, 'old provider events purged');
    } catch (err) {
      this.logger.warn({ err }, 'provider event purge failed');
    }
  }

  /** Handles the oldest due event; false when there was none. */
  async processOne(): Promise<boolean> {
    return (await this.handleNext()) !== 'none';
  }

  /** The oldest due event: applied (done), kept for a retry (failed), or none was due. */
  private async handleNext(): Promise<'done' | 'failed' | 'none'> {
    let claimedId: string | null = null;
    let attempts = 0;
    try {
      return await this.repo.transaction(
        async (tx): Promise<'done' | 'none'> => {
          const event = await this.repo.claimNext(tx);
          if (!event) return 'none';
          claimedId = event.id;
          attempts = event.attempts;
          const body = ProviderEventSchema.safeParse(event.payload);
          const change = body.success ? changeOf(body.data) : null;
          const { outcome } = change ? await this.sync.apply(tx, change, { at: event.createdAt, correlationId: event.id }) : { outcome: 'ignored' as const };
          await this.repo.markProcessed(tx, event.id, outcome);
          if (outcome !== 'applied') this.logger.info({ eventId: event.id, type: event.type, outcome }, 'provider event not applied');
          return 'done';
        },
        { timeout: 15_000, maxWait: 10_000 },
      );
    } catch (err) {
      if (claimedId === null) throw err;
      const delay = backoffMs(attempts + 1);
      this.logger.error({ err, eventId: claimedId, attempt: attempts + 1, retryInMs: delay }, 'provider event failed; kept for retry');
      await this.repo.markFailed(claimedId, (err as Error).message ?? String(err), delay);
      return 'failed';
    }
  }
}

import { DurableWorker, type BatchContext, type BatchOutcome, type Logger } from '@msp/runtime';
import { mailRequests as requestsMetric } from '../../metrics.js';
import type { ClaimedRequest, MailQueueRepository } from './mail-queue.repository.js';

/** VERIFY_EMAIL: AUTH-7; RESET_PASSWORD: AUTH-8. */
export type MailRequestKind = 'VERIFY_EMAIL' | 'RESET_PASSWORD';
/** sent: a mail was queued; capped: the account's hourly cap was reached; none: no mail is due (no such account, ...). */
export type MailRequestOutcome = 'sent' | 'capped' | 'none';
export type MailRequestHandler = (email: string) => Promise<MailRequestOutcome>;

const BATCH = 20;
/** A claimed request is retried by any replica after this long if its worker died mid-way. */
const CLAIM_SECONDS = 60;

export interface MailRequestsOptions {
  queue: MailQueueRepository;
  logger: Logger;
  pollMs: number;
  maxAttempts: number;
}

/**
 * The queue behind AUTH-7 and AUTH-8. A request does the same work whatever the address: one
 * insert here (after its rate limit), then it answers. Looking the account up, applying the
 * per-account cap, issuing the token and queueing the mail happen in this worker, so neither the
 * answer nor its timing tells whether an address has an account. Rows are claimed with
 * `FOR UPDATE SKIP LOCKED` (safe with many replicas), deleted once handled (they hold an
 * address), retried with backoff on failure and dropped after `maxAttempts`.
 */
export class MailRequests {
  private readonly handlers = new Map<MailRequestKind, MailRequestHandler>();
  private readonly worker: DurableWorker;

  constructor(private readonly options: MailRequestsOptions) {
    // Batches follow one another until the queue is empty, then every `pollMs` (never woken: see enqueue).
    this.worker = new DurableWorker({ name: 'identity-mail-requests', logger: options.logger, pollMs: options.pollMs, batch: (ctx) => this.handleBatch(ctx) });
  }

  handle(kind: MailRequestKind, handler: MailRequestHandler): void {
    this.handlers.set(kind, handler);
  }

  /**
   * Not followed by a wake-up: the worker picks requests up at its next poll (MAIL_POLL_MS), so
   * its work, which differs for known and unknown addresses, is not tied in time to the answer
   * of the request that caused it.
   */
  async enqueue(kind: MailRequestKind, email: string): Promise<void> {
    await this.options.queue.enqueueRequest(kind, email);
  }

  start(): void {
    // Without `notify` start() resolves at once and never rejects.
    void this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  private async handleBatch(ctx: BatchContext): Promise<BatchOutcome> {
    const batch = await this.options.queue.claimRequests(BATCH, CLAIM_SECONDS);
    let done = 0;
    let failed = 0;
    // One at a time, in request order: requests for one account are then counted in order.
    for (const request of batch.sort((a, b) => a.id - b.id)) {
      // Stop gave up waiting: the rest stay claimed until CLAIM_SECONDS pass, then any replica takes them.
      if (ctx.signal.aborted) break;
      if (await this.process(request)) done += 1;
      else failed += 1;
    }
    return { done, failed, more: batch.length > 0 };
  }

  /** True when the request was handled; a failure is retried later (or dropped) and gives false. */
  private async process(request: ClaimedRequest): Promise<boolean> {
    const { queue, logger } = this.options;
    const handler = this.handlers.get(request.kind as MailRequestKind);
    try {
      if (!handler) throw new Error(`no handler for mail request kind ${request.kind}`);
      const outcome = await handler(request.email);
      requestsMetric.inc({ kind: request.kind, outcome });
      await queue.deleteRequest(request.id);
      return true;
    } catch (err) {
      const dropped = request.attempts >= this.options.maxAttempts;
      logger.warn({ err: (err as Error).message, mailRequestId: request.id, kind: request.kind, attempt: request.attempts, dropped }, 'mail request failed');
      if (dropped) await queue.deleteRequest(request.id);
      else await queue.retryRequestAt(request.id, new Date(Date.now() + Math.min(600_000, 1000 * 2 ** request.attempts)));
      return false;
    }
  }
}

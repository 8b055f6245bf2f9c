import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DurableWorker, type BatchOutcome, type Logger } from '@msp/runtime';
import nodemailer, { type Transporter } from 'nodemailer';
import type { ClaimedMail, MailQueueRepository } from './mail-queue.repository.js';

const BATCH = 10;
/** A claimed mail is retried by any replica after this long if its sender died mid-send. */
const CLAIM_SECONDS = 120;

export interface MailSenderOptions {
  queue: MailQueueRepository;
  logger: Logger;
  smtpUrl?: string;
  from: string;
  mailDir: string;
  pollMs: number;
  maxAttempts: number;
}

/**
 * Delivers the mail outbox in the background with retries (exponential backoff, then FAILED), so a
 * slow or failing SMTP server never fails or delays a request. Rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, so several replicas never send the same mail twice at once.
 * Without SMTP_URL each mail is written as an .eml file to MAIL_DIR and its links are logged.
 */
export class MailSender {
  private readonly transport: Transporter;
  private readonly toFiles: boolean;
  private readonly worker: DurableWorker;

  constructor(private readonly options: MailSenderOptions) {
    this.toFiles = !options.smtpUrl;
    this.transport = options.smtpUrl
      ? nodemailer.createTransport({ url: options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    // Batches follow one another until the queue is empty, then every `pollMs` or at `wake()`.
    this.worker = new DurableWorker({ name: 'identity-mail-outbox', logger: options.logger, pollMs: options.pollMs, batch: () => this.sendBatch() });
  }

  start(): void {
    // Without `notify` start() resolves at once and never rejects.
    void this.worker.start();
  }

  /** Called after a transaction that queued mail committed: send now instead of at the next poll. */
  wake(): void {
    this.worker.wake();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    this.transport.close();
  }

  private async sendBatch(): Promise<BatchOutcome> {
    const batch = await this.options.queue.claimMails(BATCH, CLAIM_SECONDS);
    const sent = await Promise.all(batch.map((mail) => this.deliver(mail)));
    const done = sent.filter(Boolean).length;
    return { done, failed: sent.length - done, more: batch.length > 0 };
  }

  /** True when the mail went out; a failure is recorded for a retry (or FAILED) and gives false. */
  private async deliver(mail: ClaimedMail): Promise<boolean> {
    const { queue, logger } = this.options;
    try {
      const info = await this.transport.sendMail({
        from: this.options.from,
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text_body ?? '',
        html: mail.html_body ?? undefined,
      });
      if (this.toFiles) await this.writeFile(mail, (info as { message: Buffer }).message);
      // The body holds a one-time link: it is not kept once delivered.
      await queue.markSent(mail.id);
      return true;
    } catch (err) {
      const failed = mail.attempts >= this.options.maxAttempts;
      const delayMs = Math.min(3_600_000, 1000 * 2 ** mail.attempts);
      logger.warn({ err: (err as Error).message, mailId: mail.id, attempt: mail.attempts, failed }, 'mail delivery failed');
      await queue.markFailed(mail.id, failed, new Date(Date.now() + delayMs), (err as Error).message);
      return false;
    }
  }

  private async writeFile(mail: ClaimedMail, raw: Buffer): Promise<void> {
    const dir = path.resolve(this.options.mailDir);
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.id}.eml`);
    await writeFile(file, raw);
    const links = (mail.text_body ?? '').match(/https?:\/\/\S+/g) ?? [];
    this.options.logger.info({ to: mail.recipient, subject: mail.subject, file, links }, 'mail written (no SMTP_URL)');
  }
}

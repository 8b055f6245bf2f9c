import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@msp/runtime';
import nodemailer, { type Transporter } from 'nodemailer';
import { DrainLoop } from './drain-loop.js';
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
  private readonly loop: DrainLoop;

  constructor(private readonly options: MailSenderOptions) {
    this.toFiles = !options.smtpUrl;
    this.transport = options.smtpUrl
      ? nodemailer.createTransport({ url: options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    this.loop = new DrainLoop(
      () => this.drain(),
      options.pollMs,
      (err) => options.logger.warn({ err }, 'mail outbox drain failed'),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Called after a transaction that queued mail committed: send now instead of at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.transport.close();
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.loop.isStopped) return;
      const batch = await this.options.queue.claimMails(BATCH, CLAIM_SECONDS);
      if (batch.length === 0) return;
      await Promise.all(batch.map((mail) => this.deliver(mail)));
    }
  }

  private async deliver(mail: ClaimedMail): Promise<void> {
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
    } catch (err) {
      const failed = mail.attempts >= this.options.maxAttempts;
      const delayMs = Math.min(3_600_000, 1000 * 2 ** mail.attempts);
      logger.warn({ err: (err as Error).message, mailId: mail.id, attempt: mail.attempts, failed }, 'mail delivery failed');
      await queue.markFailed(mail.id, failed, new Date(Date.now() + delayMs), (err as Error).message);
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

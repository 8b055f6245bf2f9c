import { sql } from '@msp/db';
import type { PrismaClient } from '../../generated/prisma/client.js';

export interface ClaimedRequest {
  id: number;
  kind: string;
  email: string;
  attempts: number;
}

export interface ClaimedMail {
  id: number;
  recipient: string;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  attempts: number;
}

/**
 * The two queues behind identity's mails: `mail_requests` (AUTH-7/AUTH-8 work done later, so the
 * answer does not depend on whether an account exists) and `mail_outbox` (mails queued in the
 * transaction that caused them). Rows are claimed with a lease (`FOR UPDATE SKIP LOCKED`), so
 * replicas never share one.
 */
export class MailQueueRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async enqueueRequest(kind: string, email: string): Promise<void> {
    await this.prisma.mailRequest.create({ data: { kind, email }, select: { id: true } });
  }

  claimRequests(batch: number, claimSeconds: number): Promise<ClaimedRequest[]> {
    return this.prisma.$queryRaw<ClaimedRequest[]>(
      sql`UPDATE mail_requests SET locked_until = now() + (${claimSeconds} * interval '1 second'), attempts = attempts + 1
       WHERE id IN (SELECT id FROM mail_requests WHERE next_attempt_at <= now()
                    AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
       RETURNING id, kind, email, attempts`,
    );
  }

  async deleteRequest(id: number): Promise<void> {
    await this.prisma.mailRequest.delete({ where: { id }, select: { id: true } });
  }

  async retryRequestAt(id: number, nextAttemptAt: Date): Promise<void> {
    await this.prisma.mailRequest.update({ where: { id }, data: { nextAttemptAt, lockedUntil: null }, select: { id: true } });
  }

  claimMails(batch: number, claimSeconds: number): Promise<ClaimedMail[]> {
    return this.prisma.$queryRaw<ClaimedMail[]>(
      sql`UPDATE mail_outbox SET locked_until = now() + (${claimSeconds} * interval '1 second'), attempts = attempts + 1
       WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'PENDING' AND next_attempt_at <= now()
                    AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
       RETURNING id, recipient, subject, text_body, html_body, attempts`,
    );
  }

  /** Delivered: the body holds a one-time link, so it is not kept. */
  async markSent(id: number): Promise<void> {
    await this.prisma.mailOutbox.update({
      where: { id },
      data: { status: 'SENT', sentAt: new Date(), textBody: null, htmlBody: null, lockedUntil: null, lastError: null },
    });
  }

  async markFailed(id: number, failed: boolean, nextAttemptAt: Date, error: string): Promise<void> {
    await this.prisma.mailOutbox.update({
      where: { id },
      data: { status: failed ? 'FAILED' : 'PENDING', nextAttemptAt, lockedUntil: null, lastError: error.slice(0, 500) },
    });
  }
}

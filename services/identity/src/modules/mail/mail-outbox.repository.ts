import type { Prisma } from '../../generated/prisma/client.js';
import type { MailContent } from './mail.templates.js';

/** Queues a mail inside the caller's transaction; the background sender delivers it after commit. */
export async function enqueueMail(tx: Prisma.TransactionClient, to: string, content: MailContent): Promise<void> {
  await tx.mailOutbox.create({
    data: { recipient: to, subject: content.subject, textBody: content.text, htmlBody: content.html },
    select: { id: true },
  });
}

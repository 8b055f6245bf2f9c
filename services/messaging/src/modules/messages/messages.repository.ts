import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

export interface StoredResource {
  resourceType: 'TRACK' | 'PLAYLIST';
  resourceId: number;
}

export const messageSelect = {
  id: true,
  conversationId: true,
  senderId: true,
  content: true,
  resources: true,
  readAt: true,
  createdAt: true,
} as const satisfies Prisma.MessageSelect;

export type MessageRow = Prisma.MessageGetPayload<{ select: typeof messageSelect }>;

/** What MessagesService needs of this repository (unit tests give fakes). */
export type MessagesStore = Pick<MessagesRepository, 'transaction' | 'page' | 'markRead' | 'insert'>;

export class MessagesRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One unit of work: the methods given `tx` and the outbox row commit or roll back together. */
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work);
  }

  /** A page of the conversation's messages, newest first, and the total (two queries). */
  async page(conversationId: number, page: number, size: number): Promise<{ rows: MessageRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.message.findMany({
        where: { conversationId },
        select: messageSelect,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: page * size,
        take: size,
      }),
      this.prisma.message.count({ where: { conversationId } }),
    ]);
    return { rows, total };
  }

  /** MSG-3: every unread message of the partner becomes read at `readAt`; returns how many changed. */
  markRead(tx: Prisma.TransactionClient, conversationId: number, readerId: number, readAt: Date): Promise<number> {
    // A deleted sender's messages (senderId null, ACC-5) are the partner's too.
    return tx.message
      .updateMany({ where: { conversationId, OR: [{ senderId: { not: readerId } }, { senderId: null }], readAt: null }, data: { readAt } })
      .then((r) => r.count);
  }

  /** MSG-4: the message and the conversation's latest activity, in the caller's transaction. */
  async insert(
    tx: Prisma.TransactionClient,
    input: { conversationId: number; senderId: number; content: string; resources: StoredResource[] },
  ): Promise<MessageRow> {
    const row = await tx.message.create({
      data: {
        conversationId: input.conversationId,
        senderId: input.senderId,
        content: input.content,
        resources: input.resources as unknown as Prisma.InputJsonValue,
      },
      select: messageSelect,
    });
    await tx.conversation.update({ where: { id: input.conversationId }, data: { lastMessageAt: row.createdAt }, select: { id: true } });
    return row;
  }
}

/** The stored resources column, defensively parsed (older rows hold `[]`). */
export function storedResources(row: Pick<MessageRow, 'resources'>): StoredResource[] {
  if (!Array.isArray(row.resources)) return [];
  return row.resources.flatMap((r) => {
    const item = r as { resourceType?: unknown; resourceId?: unknown } | null;
    if (!item || (item.resourceType !== 'TRACK' && item.resourceType !== 'PLAYLIST') || typeof item.resourceId !== 'number') return [];
    return [{ resourceType: item.resourceType, resourceId: item.resourceId }];
  });
}

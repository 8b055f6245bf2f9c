import { toPage, type Conversation, type Page } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { toConversation } from './conversation.mapper.js';
import { ConversationsRepository } from './conversations.repository.js';

export class ConversationsService {
  private readonly repo: ConversationsRepository;

  constructor(prisma: PrismaClient) {
    this.repo = new ConversationsRepository(prisma);
  }

  /** MSG-1. Only the caller's own conversations (R16); three queries whatever the page size. */
  async list(callerId: number, page: number, size: number): Promise<Page<Conversation>> {
    const { rows, total } = await this.repo.listFor(callerId, page, size);
    const users = await this.repo.users(rows.flatMap((row) => [row.userLowId, row.userHighId]));
    return toPage(
      rows.map((row) => toConversation(row, callerId, users)),
      total,
      page,
      size,
    );
  }
}

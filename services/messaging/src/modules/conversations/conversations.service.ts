import { AppError } from '@msp/errors';
import { toPage, type Conversation, type Page } from '@msp/contracts';
import { toConversation } from './conversation.mapper.js';
import type { ConversationsStore } from './conversations.repository.js';

/** MSG-1 and MSG-2. The repository is given (app.ts wires it), so a test can pass a fake. */
export class ConversationsService {
  constructor(private readonly repo: ConversationsStore) {}

  /** MSG-1. Only the caller's own conversations (R16); three queries whatever the page size. */
  async list(callerId: number, page: number, size: number): Promise<Page<Conversation>> {
    const { rows, total } = await this.repo.listFor(callerId, page, size);
    const users = await this.repo.users(
      rows.flatMap((row) => [row.userLowId, row.userHighId]),
      [callerId],
    );
    return toPage(
      rows.map((row) => toConversation(row, callerId, users)),
      total,
      page,
      size,
    );
  }

  /**
   * MSG-2: the pair's one conversation, created on first call (201) and returned afterwards (200).
   * R7: towards a user the caller blocked → 403 USER_BLOCKED; towards a user who blocked the
   * caller, that user has disappeared for them → 404 USER_NOT_FOUND, like a banned or unknown one.
   */
  async start(callerId: number, userId: number): Promise<{ created: boolean; conversation: Conversation }> {
    if (userId === callerId) throw new AppError('SELF_ACTION_NOT_ALLOWED', 'You cannot message yourself.');
    if (!(await this.repo.reachableUser(userId))) throw new AppError('USER_NOT_FOUND');
    const blocks = await this.repo.blocksBetween(callerId, userId);
    if (blocks.bBlockedA) throw new AppError('USER_NOT_FOUND');
    if (blocks.aBlockedB) throw new AppError('USER_BLOCKED', 'You have blocked this user.');
    const { id, created } = await this.repo.startPair(callerId, userId);
    const row = await this.repo.oneFor(callerId, id);
    if (!row) throw new AppError('USER_NOT_FOUND');
    const users = await this.repo.users([row.userLowId, row.userHighId], [callerId]);
    return { created, conversation: toConversation(row, callerId, users) };
  }
}

import { toPage, toUserSummary, type MessageResponse, type Page, type UserSummary } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { UserBlocked, UserUnblocked, writeOutbox } from '@msp/events';
import type { UnitOfWork } from '@msp/db';
import type { Caller } from '@msp/http';
import type { FollowsStore } from '../follows/follows.repository.js';
import type { GraphLocks } from '../users/graph-locks.repository.js';
import type { UserRef } from '@msp/contracts';
import type { UsersStore } from '../users/users.repository.js';
import type { BlocksStore } from './blocks.repository.js';

export class BlocksService {
  constructor(
    private readonly repo: BlocksStore,
    private readonly follows: Pick<FollowsStore, 'shiftCounts'>,
    private readonly users: Pick<UsersStore, 'find'>,
    private readonly graph: GraphLocks,
    private readonly transactions: UnitOfWork,
  ) {}

  /**
   * BLK-1, idempotent, whatever the other side did (R7). The block, the removal of follows in
   * both directions with their counters, and the event carrying both users' new counts commit together.
   */
  async block(ref: UserRef, caller: Caller, correlationId: string): Promise<MessageResponse> {
    const target = await this.target(ref, caller);
    await this.transactions.run(async (tx) => {
      await this.graph.lockUsers(tx, caller.userId, target);
      if (!(await this.repo.insert(tx, caller.userId, target))) return;
      const removed = await this.repo.removeFollowsBetween(tx, caller.userId, target);
      for (const pair of removed) await this.follows.shiftCounts(tx, pair.followerId, pair.followeeId, -1);
      const counts = await this.graph.followCounts(tx, [caller.userId, target]);
      await writeOutbox(tx, UserBlocked, { blockerId: caller.userId, blockedId: target, counts, at: new Date().toISOString() }, { correlationId });
    });
    return { message: 'User blocked.' };
  }

  /** BLK-2, idempotent. Follows removed by the block are not restored (R7). */
  async unblock(ref: UserRef, caller: Caller, correlationId: string): Promise<void> {
    const target = await this.target(ref, caller);
    await this.transactions.run(async (tx) => {
      if (!(await this.repo.delete(tx, caller.userId, target))) return;
      await writeOutbox(tx, UserUnblocked, { blockerId: caller.userId, blockedId: target, at: new Date().toISOString() }, { correlationId });
    });
  }

  /** BLK-3. Follows across a block do not exist, so isFollowing is always false here. */
  async list(caller: Caller, page: number, size: number): Promise<Page<UserSummary>> {
    const { rows, total } = await this.repo.list(caller.userId, page, size);
    return toPage(
      rows.map((row) => toUserSummary(row, false)),
      total,
      page,
      size,
    );
  }

  /** Blocking works whatever the other side did, so a user who blocked the caller is still found here. */
  private async target(ref: UserRef, caller: Caller): Promise<number> {
    const user = await this.users.find(ref, caller.userId);
    if (!user) throw new AppError('USER_NOT_FOUND', 'User not found.');
    if (user.userId === caller.userId) throw new AppError('SELF_ACTION_NOT_ALLOWED', 'You cannot block yourself.');
    return user.userId;
  }
}

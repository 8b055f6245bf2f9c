import { toPage, toUserSummary, type FollowResponse, type Page, type UserSummary } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { UserFollowed, UserUnfollowed, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { UnitOfWork } from '@msp/db';
import type { GraphLocks } from '../users/graph-locks.repository.js';
import type { UserRef } from '@msp/contracts';
import { assertActivityVisible, requireVisibleUser, type UsersStore } from '../users/users.repository.js';
import { viewerOf } from '../users/viewer.js';
import type { FollowDirection, FollowsStore } from './follows.repository.js';

export class FollowsService {
  constructor(
    private readonly repo: FollowsStore,
    private readonly users: Pick<UsersStore, 'find'>,
    private readonly graph: Pick<GraphLocks, 'lockUsers'>,
    private readonly transactions: UnitOfWork,
  ) {}

  /**
   * FOL-3 / FOL-4. R8: a private profile's lists are for the user and admins only, and a private
   * follower is listed in others' followers lists only for themself and admins; R7 hides blocked users.
   */
  async list(direction: FollowDirection, ref: UserRef, caller: Caller | null, page: number, size: number): Promise<Page<UserSummary>> {
    const viewer = viewerOf(caller);
    const user = await requireVisibleUser(this.users, ref, viewer);
    assertActivityVisible(user, viewer);
    const { rows, total } = await this.repo.list(direction, user.userId, viewer.id, page, size, viewer.isAdmin);
    const items = rows.map((row) => toUserSummary(row, row.userId !== viewer.id && row.isFollowing));
    return toPage(items, total, page, size);
  }

  /**
   * FOL-1, idempotent. R7: towards a user the caller blocked → 403 USER_BLOCKED; a user who
   * blocked the caller does not exist for them → 404. Checked again under the pair's row locks,
   * so a block committed meanwhile wins.
   */
  async follow(ref: UserRef, caller: Caller, correlationId: string): Promise<FollowResponse> {
    const target = await this.target(ref, caller);
    return this.transactions.run(async (tx) => {
      await this.graph.lockUsers(tx, caller.userId, target);
      const fresh = await this.users.find({ id: target }, caller.userId, tx);
      if (!fresh || fresh.hasBlockedViewer) throw new AppError('USER_NOT_FOUND', 'User not found.');
      if (fresh.blockedByViewer) throw new AppError('USER_BLOCKED', 'Unblock this user before following them.');
      const created = await this.repo.follow(tx, caller.userId, target);
      const [followee, follower] = await this.repo.counts(tx, [target, caller.userId]);
      if (created) {
        await writeOutbox(
          tx,
          UserFollowed,
          {
            followerId: caller.userId,
            followeeId: target,
            followerFollowingCount: follower?.followingCount ?? 0,
            followeeFollowerCount: followee?.followerCount ?? 0,
            at: new Date().toISOString(),
          },
          { correlationId },
        );
      }
      return { message: `You are following ${fresh.username}.`, isFollowing: true, followerCount: followee?.followerCount ?? 0 };
    });
  }

  /**
   * FOL-2, idempotent. Works towards a banned user too (R14 hides them, but a follower may still
   * take their follow back; the answer's followerCount is the stored count, which leaves banned
   * followers out).
   */
  async unfollow(ref: UserRef, caller: Caller, correlationId: string): Promise<FollowResponse> {
    const target = await this.target(ref, caller, false, true);
    return this.transactions.run(async (tx) => {
      await this.graph.lockUsers(tx, caller.userId, target);
      const removed = await this.repo.unfollow(tx, caller.userId, target);
      const [followee, follower] = await this.repo.counts(tx, [target, caller.userId]);
      if (removed) {
        await writeOutbox(
          tx,
          UserUnfollowed,
          {
            followerId: caller.userId,
            followeeId: target,
            followerFollowingCount: follower?.followingCount ?? 0,
            followeeFollowerCount: followee?.followerCount ?? 0,
            at: new Date().toISOString(),
          },
          { correlationId },
        );
      }
      return { message: 'You are no longer following this user.', isFollowing: false, followerCount: followee?.followerCount ?? 0 };
    });
  }

  /** USR-16. */
  async suggested(caller: Caller, page: number, size: number): Promise<Page<UserSummary>> {
    const { rows, total } = await this.repo.suggested(caller.userId, page, size);
    return toPage(
      rows.map((row) => toUserSummary(row, false)),
      total,
      page,
      size,
    );
  }

  private async target(ref: UserRef, caller: Caller, refuseSelf = true, evenBanned = false): Promise<number> {
    const user = await requireVisibleUser(this.users, ref, viewerOf(caller), { evenBanned });
    if (refuseSelf && user.userId === caller.userId) throw new AppError('SELF_ACTION_NOT_ALLOWED', 'You cannot follow yourself.');
    return user.userId;
  }
}

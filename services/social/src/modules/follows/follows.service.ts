import { toPage, toUserSummary, type Page, type UserSummary } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { UserRef } from '../users/user-ref.js';
import { FollowsRepository, type FollowDirection } from './follows.repository.js';

export class FollowsService {
  private readonly repo: FollowsRepository;

  constructor(prisma: PrismaClient) {
    this.repo = new FollowsRepository(prisma);
  }

  /** FOL-3 / FOL-4. R8: a private profile's lists are for the user and admins only. */
  async list(direction: FollowDirection, ref: UserRef, caller: Caller | null, page: number, size: number): Promise<Page<UserSummary>> {
    const user = await this.repo.findUser(ref);
    if (!user) throw new AppError('USER_NOT_FOUND', 'User not found.');
    const privileged = caller !== null && (caller.userId === user.userId || caller.role === 'ADMIN');
    if (user.isPrivate && !privileged) throw new AppError('PROFILE_PRIVATE', 'This profile is private.');
    const { rows, total } = await this.repo.list(direction, user.userId, caller?.userId ?? null, page, size);
    const items = rows.map((row) => toUserSummary(row, caller !== null && row.userId !== caller.userId && row.isFollowing));
    return toPage(items, total, page, size);
  }
}

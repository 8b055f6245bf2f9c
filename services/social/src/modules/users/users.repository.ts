import { sql } from '@msp/db';
import { AppError } from '@msp/errors';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { UserListRow } from '../follows/follows.repository.js';
import type { UserRef } from '@msp/contracts';
import { userColumns } from './user-sql.js';
import type { Viewer } from './viewer.js';

export interface UserRow {
  userId: number;
  username: string;
  isPrivate: boolean;
  /** The viewer has blocked this user. */
  blockedByViewer: boolean;
  /** This user has blocked the viewer (R7: the user then does not exist for the viewer). */
  hasBlockedViewer: boolean;
  /** R14: identity banned this user (social's copy in `banned_users`). */
  isBanned: boolean;
}

export class UsersRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The user named by id or username, with both block directions towards the viewer: one query. */
  async find(ref: UserRef, viewerId: number, db: SqlExecutor = this.prisma): Promise<UserRow | null> {
    const match = 'id' in ref ? sql`u.user_id = ${ref.id}` : sql`u.username = ${ref.username}`;
    const rows = await db.$queryRaw<UserRow[]>(
      sql`SELECT u.user_id AS "userId", u.username, u.is_private AS "isPrivate",
                 EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ${viewerId} AND b.blocked_id = u.user_id) AS "blockedByViewer",
                 EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = u.user_id AND b.blocked_id = ${viewerId}) AS "hasBlockedViewer",
                 EXISTS (SELECT 1 FROM banned_users bn WHERE bn.user_id = u.user_id) AS "isBanned"
            FROM user_summaries u
           WHERE ${match} AND NOT u.is_deleted`,
    );
    return rows[0] ?? null;
  }

  /** User summary sources of the given users with the viewer's isFollowing, one query. */
  summaries(userIds: number[], viewerId: number): Promise<UserListRow[]> {
    return this.prisma.$queryRaw<UserListRow[]>(
      sql`SELECT ${userColumns('u')},
                 EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = u.user_id) AS "isFollowing"
            FROM user_summaries u WHERE u.user_id = ANY(${userIds}::int[]) AND NOT u.is_deleted`,
    );
  }
}

/**
 * Resolves the user an operation names, as the viewer may see it (R7: a user who blocked the
 * viewer does not exist for them; R14: nor does a banned user, unless `evenBanned`; admins see
 * everyone).
 */
export async function requireVisibleUser(
  repo: Pick<UsersRepository, 'find'>,
  ref: UserRef,
  viewer: Viewer,
  options: { evenBanned?: boolean } = {},
): Promise<UserRow> {
  const user = await repo.find(ref, viewer.id);
  // R7: a user who blocked the viewer, R14: a banned user, do not exist for them (admins excepted),
  // except where `evenBanned` lets the viewer undo their own follow of a banned user (FOL-2).
  const hidden = user && (user.hasBlockedViewer || (user.isBanned && !options.evenBanned));
  if (!user || (hidden && !viewer.isAdmin)) throw new AppError('USER_NOT_FOUND', 'User not found.');
  return user;
}

/** R8: a private user's activity lists are for the user and admins only. */
export function assertActivityVisible(user: UserRow, viewer: Viewer): void {
  if (user.isPrivate && user.userId !== viewer.id && !viewer.isAdmin) {
    throw new AppError('PROFILE_PRIVATE', 'This profile is private.');
  }
}

/** What the services need of the user copies (unit tests give a fake). */
export type UsersStore = Pick<UsersRepository, 'find' | 'summaries'>;

import { toUserSummary, type UserSummary, type UserSummarySource } from '@msp/contracts';
import { DELETED_USER_ROW, unknownUserRow } from './unknown-user.js';

/** A user summary row plus which of the page's readers follow that user (from `follows`). */
export interface UserRow extends UserSummarySource {
  followedBy: number[];
}

export type UserRows = ReadonlyMap<number, UserRow>;

/**
 * The User summary of `userId` as `viewerId` sees it (isFollowing; false for oneself); a null id
 * is a user who deleted their account (ACC-5), shown as "Deleted user".
 */
export function summaryFor(users: UserRows, userId: number | null, viewerId: number): UserSummary {
  if (userId === null) return toUserSummary(DELETED_USER_ROW, false);
  const row = users.get(userId);
  return toUserSummary(row ?? unknownUserRow(userId), userId !== viewerId && (row?.followedBy.includes(viewerId) ?? false));
}

/** The ids of a page's users that are still there (a deleted participant is null). */
export function presentIds(ids: ReadonlyArray<number | null>): number[] {
  return ids.filter((id): id is number => id !== null);
}

import { toUserSummary, type UserSummary, type UserSummarySource } from '@msp/contracts';
import { unknownUserRow } from './unknown-user.js';

/** A user summary row plus which of the page's readers follow that user (from `follows`). */
export interface UserRow extends UserSummarySource {
  followedBy: number[];
}

export type UserRows = ReadonlyMap<number, UserRow>;

/** The User summary of `userId` as `viewerId` sees it (isFollowing; false for oneself). */
export function summaryFor(users: UserRows, userId: number, viewerId: number): UserSummary {
  const row = users.get(userId);
  return toUserSummary(row ?? unknownUserRow(userId), userId !== viewerId && (row?.followedBy.includes(viewerId) ?? false));
}

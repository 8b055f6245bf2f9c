import { MAX_ID, type UserSummarySource } from '@msp/contracts';

/**
 * Stands in for a participant the projection does not hold (an identity event not yet applied),
 * so a conversation is never dropped from a list. Display only: nothing is stored.
 */
export function unknownUserRow(userId: number): UserSummarySource {
  return { userId, username: `user-${userId}`, displayName: `user-${userId}`, avatarUrl: null, tier: 'FREE', followerCount: 0, trackCount: 0 };
}

/**
 * ACC-5: the id a deleted participant or sender is shown with (docs/account-control.md). The
 * records keep their shape (ids are positive), no user can have it, and nothing of the deleted
 * user (id, username, name) is stored or shown.
 */
export const DELETED_USER_ID = MAX_ID;

export const DELETED_USER_ROW: UserSummarySource = {
  userId: DELETED_USER_ID,
  username: 'deleted-user',
  displayName: 'Deleted user',
  avatarUrl: null,
  tier: 'FREE',
  followerCount: 0,
  trackCount: 0,
};

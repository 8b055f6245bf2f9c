import type { UserSummarySource } from '@msp/contracts';

/**
 * Stands in for a participant the projection does not hold (an identity event not yet applied),
 * so a conversation is never dropped from a list. Display only: nothing is stored.
 */
export function unknownUserRow(userId: number): UserSummarySource {
  return { userId, username: `user-${userId}`, displayName: `user-${userId}`, avatarUrl: null, tier: 'FREE', followerCount: 0, trackCount: 0 };
}

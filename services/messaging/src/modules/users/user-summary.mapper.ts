import type { UserSummary as WireUserSummary } from '@msp/contracts';

export interface UserSummaryRow {
  userId: number;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  tier: string;
  followerCount: number;
  trackCount: number;
}

export const userSummarySelect = {
  userId: true,
  username: true,
  displayName: true,
  avatarUrl: true,
  tier: true,
  followerCount: true,
  trackCount: true,
} as const;

/**
 * Stands in for a participant the projection does not hold (an identity event not yet applied),
 * so a conversation is never dropped from a list. Display only: nothing is stored.
 */
export function unknownUserRow(userId: number): UserSummaryRow {
  return { userId, username: `user-${userId}`, displayName: `user-${userId}`, avatarUrl: null, tier: 'FREE', followerCount: 0, trackCount: 0 };
}

/**
 * isFollowing needs the caller's follows, which messaging does not keep yet (social publishes no
 * follow events so far): callers pass false until that projection exists.
 */
export function toUserSummary(row: UserSummaryRow, isFollowing: boolean): WireUserSummary {
  return {
    id: row.userId,
    username: row.username,
    displayName: row.displayName || row.username,
    avatarUrl: row.avatarUrl,
    tier: row.tier === 'PRO' ? 'PRO' : 'FREE',
    isFollowing,
    followerCount: row.followerCount,
    trackCount: row.trackCount,
  };
}

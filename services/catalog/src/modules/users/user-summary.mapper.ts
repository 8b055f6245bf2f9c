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

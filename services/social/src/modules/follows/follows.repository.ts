import type { PrismaClient } from '../../generated/prisma/client.js';
import type { UserRef } from '../users/user-ref.js';
import type { UserSummarySource } from '@msp/contracts';

export type FollowDirection = 'followers' | 'following';

export interface FollowListRow extends UserSummarySource {
  isFollowing: boolean;
}

export class FollowsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findUser(ref: UserRef) {
    return this.prisma.userSummary.findFirst({
      where: { ...('id' in ref ? { userId: ref.id } : { username: ref.username }), isDeleted: false },
      select: { userId: true, isPrivate: true },
    });
  }

  /**
   * One page of a user's followers (or followees), newest follow first, with the caller's
   * isFollowing for each listed user: one query for the page and one for the total.
   */
  async list(direction: FollowDirection, userId: number, callerId: number | null, page: number, size: number) {
    const [listed, anchor] = direction === 'followers' ? ['follower_id', 'followee_id'] : ['followee_id', 'follower_id'];
    const rows = await this.prisma.$queryRawUnsafe<FollowListRow[]>(
      `SELECT u.user_id AS "userId", u.username, u.display_name AS "displayName", u.avatar_url AS "avatarUrl",
              u.tier, u.follower_count AS "followerCount", u.track_count AS "trackCount",
              (mine.follower_id IS NOT NULL) AS "isFollowing"
         FROM follows f
         JOIN user_summaries u ON u.user_id = f.${listed} AND NOT u.is_deleted
         LEFT JOIN follows mine ON mine.follower_id = $2 AND mine.followee_id = u.user_id
        WHERE f.${anchor} = $1
        ORDER BY f.created_at DESC, u.user_id DESC
        LIMIT $3 OFFSET $4`,
      userId,
      callerId ?? 0,
      size,
      page * size,
    );
    const [{ total }] = await this.prisma.$queryRawUnsafe<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM follows f
         JOIN user_summaries u ON u.user_id = f.${listed} AND NOT u.is_deleted
        WHERE f.${anchor} = $1`,
      userId,
    ) as [{ total: number }];
    return { rows, total };
  }
}

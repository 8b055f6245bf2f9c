import type { UserSummarySource } from '@msp/contracts';
import { empty, sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { activityListedSql, bannedSql, blockedBetweenSql, col, notBannedSql, userColumns } from '../users/user-sql.js';
import { followCounts } from '../users/graph-locks.repository.js';

export type FollowDirection = 'followers' | 'following';

export interface UserListRow extends UserSummarySource {
  isFollowing: boolean;
}

export class FollowsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * One page of a user's followers (or followees), newest follow first, with the viewer's
   * isFollowing for each listed user; users separated from the viewer by a block are left out
   * (R7), and banned users for all but admins (R14). In a followers list, a private follower is
   * listed only to themself and admins (R8: the follow is their activity; the followee's
   * followerCount still counts it); a following list shows the listed user's own follows, so a
   * private followee stays. One query for the page and one for the total.
   */
  async list(direction: FollowDirection, userId: number, viewerId: number, page: number, size: number, admin = false) {
    const [listed, anchor] = direction === 'followers' ? [col('f.follower_id'), col('f.followee_id')] : [col('f.followee_id'), col('f.follower_id')];
    const join = sql`FROM follows f JOIN user_summaries u ON u.user_id = ${listed} AND NOT u.is_deleted`;
    const privacy = direction === 'followers' ? sql` AND ${activityListedSql('u', viewerId, admin)}` : empty;
    const where = sql`WHERE ${anchor} = ${userId} AND NOT ${blockedBetweenSql(viewerId, col('u.user_id'))} AND ${notBannedSql(col('u.user_id'), admin)}${privacy}`;
    const rows = await this.prisma.$queryRaw<UserListRow[]>(
      sql`SELECT ${userColumns('u')}, (mine.follower_id IS NOT NULL) AS "isFollowing"
         ${join}
         LEFT JOIN follows mine ON mine.follower_id = ${viewerId} AND mine.followee_id = u.user_id
         ${where}
        ORDER BY f.created_at DESC, u.user_id DESC
        LIMIT ${size} OFFSET ${page * size}`,
    );
    const [count] = await this.prisma.$queryRaw<Array<{ total: number }>>(sql`SELECT count(*)::int AS total ${join} ${where}`);
    return { rows, total: count?.total ?? 0 };
  }

  /** Inserts the follow if absent and, when it was new, moves both counters under their row locks. */
  async follow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<boolean> {
    const inserted = await tx.$executeRaw(
      sql`INSERT INTO follows (follower_id, followee_id, created_at) VALUES (${followerId}, ${followeeId}, now()) ON CONFLICT DO NOTHING`,
    );
    if (inserted === 0) return false;
    await this.shiftCounts(tx, followerId, followeeId, 1);
    return true;
  }

  async unfollow(tx: SqlExecutor, followerId: number, followeeId: number): Promise<boolean> {
    const deleted = await tx.$executeRaw(sql`DELETE FROM follows WHERE follower_id = ${followerId} AND followee_id = ${followeeId}`);
    if (deleted === 0) return false;
    await this.shiftCounts(tx, followerId, followeeId, -1);
    return true;
  }

  /**
   * Moves both users' counters for one follow added (+1) or removed (-1). R14: a banned user's
   * follows do not count: the followee's followerCount moves only when the follower is not
   * banned, the follower's followingCount only when the followee is not (BanCountsRepository
   * recounts when a ban starts or ends).
   */
  async shiftCounts(tx: SqlExecutor, followerId: number, followeeId: number, delta: 1 | -1): Promise<void> {
    await tx.$executeRaw(
      sql`UPDATE user_summaries SET follower_count = GREATEST(follower_count + ${delta}, 0)
           WHERE user_id = ${followeeId} AND NOT ${bannedSql(sql`${followerId}::int`)}`,
    );
    await tx.$executeRaw(
      sql`UPDATE user_summaries SET following_count = GREATEST(following_count + ${delta}, 0)
           WHERE user_id = ${followerId} AND NOT ${bannedSql(sql`${followeeId}::int`)}`,
    );
  }

  counts(tx: SqlExecutor, userIds: number[]) {
    return followCounts(tx, userIds);
  }

  /**
   * USR-16: people followed by the people the viewer follows (most shared first), then popular
   * artists (users with public tracks or the ARTIST role, by followers); never the viewer, people
   * the viewer already follows, or anyone across a block.
   */
  async suggested(viewerId: number, page: number, size: number) {
    const from = sql`WITH second AS (
             SELECT f2.followee_id AS user_id, count(*)::int AS shared
               FROM follows f1 JOIN follows f2 ON f2.follower_id = f1.followee_id
              WHERE f1.follower_id = ${viewerId}
              GROUP BY f2.followee_id)
         SELECT ${userColumns('u')}, s.shared
           FROM user_summaries u LEFT JOIN second s ON s.user_id = u.user_id
          WHERE u.user_id <> ${viewerId} AND NOT u.is_deleted AND ${notBannedSql(col('u.user_id'), false)}
            AND (s.user_id IS NOT NULL OR u.track_count > 0 OR u.role = 'ARTIST')
            AND NOT EXISTS (SELECT 1 FROM follows mine WHERE mine.follower_id = ${viewerId} AND mine.followee_id = u.user_id)
            AND NOT ${blockedBetweenSql(viewerId, col('u.user_id'))}`;
    const rows = await this.prisma.$queryRaw<UserSummarySource[]>(
      sql`${from}
          ORDER BY (s.user_id IS NULL), s.shared DESC NULLS LAST, u.follower_count DESC, u.user_id
          LIMIT ${size} OFFSET ${page * size}`,
    );
    const [count] = await this.prisma.$queryRaw<Array<{ total: number }>>(sql`SELECT count(*)::int AS total FROM (${from}) c`);
    return { rows, total: count?.total ?? 0 };
  }
}

/** What the services need of the follows (unit tests give a fake). */
export type FollowsStore = Pick<FollowsRepository, 'list' | 'follow' | 'unfollow' | 'shiftCounts' | 'counts' | 'suggested'>;

import type { UserSummarySource } from '@msp/contracts';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { userColumns } from '../users/user-sql.js';

export class BlocksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async insert(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<boolean> {
    const inserted = await tx.$executeRawUnsafe(
      'INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING',
      blockerId,
      blockedId,
    );
    return inserted > 0;
  }

  async delete(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<boolean> {
    return (await tx.$executeRawUnsafe('DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2', blockerId, blockedId)) > 0;
  }

  /** R7: removes the follows in both directions between the two users; returns the removed pairs. */
  removeFollowsBetween(tx: SqlExecutor, a: number, b: number) {
    return tx.$queryRawUnsafe<Array<{ followerId: number; followeeId: number }>>(
      `DELETE FROM follows WHERE (follower_id = $1 AND followee_id = $2) OR (follower_id = $2 AND followee_id = $1)
       RETURNING follower_id AS "followerId", followee_id AS "followeeId"`,
      a,
      b,
    );
  }

  /** BLK-3: latest block first. */
  async list(blockerId: number, page: number, size: number) {
    const rows = await this.prisma.$queryRawUnsafe<UserSummarySource[]>(
      `SELECT ${userColumns('u')}
         FROM blocks b JOIN user_summaries u ON u.user_id = b.blocked_id AND NOT u.is_deleted
        WHERE b.blocker_id = $1
        ORDER BY b.created_at DESC, u.user_id DESC
        LIMIT $2 OFFSET $3`,
      blockerId,
      size,
      page * size,
    );
    const [count] = await this.prisma.$queryRawUnsafe<Array<{ total: number }>>(
      `SELECT count(*)::int AS total
         FROM blocks b JOIN user_summaries u ON u.user_id = b.blocked_id AND NOT u.is_deleted
        WHERE b.blocker_id = $1`,
      blockerId,
    );
    return { rows, total: count?.total ?? 0 };
  }
}

/** What BlocksService needs of the blocks (unit tests give a fake). */
export type BlocksStore = Pick<BlocksRepository, 'insert' | 'delete' | 'removeFollowsBetween' | 'list'>;

import type { UserSummarySource } from '@msp/contracts';
import { sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { userColumns } from '../users/user-sql.js';

export class BlocksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async insert(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<boolean> {
    const inserted = await tx.$executeRaw(
      sql`INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (${blockerId}, ${blockedId}, now()) ON CONFLICT DO NOTHING`,
    );
    return inserted > 0;
  }

  async delete(tx: SqlExecutor, blockerId: number, blockedId: number): Promise<boolean> {
    return (await tx.$executeRaw(sql`DELETE FROM blocks WHERE blocker_id = ${blockerId} AND blocked_id = ${blockedId}`)) > 0;
  }

  /** R7: removes the follows in both directions between the two users; returns the removed pairs. */
  removeFollowsBetween(tx: SqlExecutor, a: number, b: number) {
    return tx.$queryRaw<Array<{ followerId: number; followeeId: number }>>(
      sql`DELETE FROM follows WHERE (follower_id = ${a} AND followee_id = ${b}) OR (follower_id = ${b} AND followee_id = ${a})
       RETURNING follower_id AS "followerId", followee_id AS "followeeId"`,
    );
  }

  /** BLK-3: latest block first. */
  async list(blockerId: number, page: number, size: number) {
    const rows = await this.prisma.$queryRaw<UserSummarySource[]>(
      sql`SELECT ${userColumns('u')}
         FROM blocks b JOIN user_summaries u ON u.user_id = b.blocked_id AND NOT u.is_deleted
        WHERE b.blocker_id = ${blockerId}
        ORDER BY b.created_at DESC, u.user_id DESC
        LIMIT ${size} OFFSET ${page * size}`,
    );
    const [count] = await this.prisma.$queryRaw<Array<{ total: number }>>(
      sql`SELECT count(*)::int AS total
         FROM blocks b JOIN user_summaries u ON u.user_id = b.blocked_id AND NOT u.is_deleted
        WHERE b.blocker_id = ${blockerId}`,
    );
    return { rows, total: count?.total ?? 0 };
  }
}

/** What BlocksService needs of the blocks (unit tests give a fake). */
export type BlocksStore = Pick<BlocksRepository, 'insert' | 'delete' | 'removeFollowsBetween' | 'list'>;

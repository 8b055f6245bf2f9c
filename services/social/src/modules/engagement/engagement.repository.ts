import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { activityListedSql, bannedSql, blockedBetweenSql, notBannedSql, playlistVisibleSql, trackVisibleSql, userColumns } from '../users/user-sql.js';
import type { Viewer } from '../users/viewer.js';
import type { UserListRow } from '../follows/follows.repository.js';

export type TargetType = 'TRACK' | 'PLAYLIST';
export type Action = 'like' | 'repost';

/** Where each engageable item lives in social's database. Table names are constants, never input. */
interface TargetTables {
  ref: string;
  id: string;
  owner: string;
  like: string;
  repost: string;
  visible: (alias: string, viewer: string, admin: string, banExempt?: string) => string;
}

const TARGETS: Record<TargetType, TargetTables> = {
  TRACK: {
    ref: 'track_refs',
    id: 'track_id',
    owner: 'artist_id',
    like: 'track_likes',
    repost: 'track_reposts',
    visible: trackVisibleSql,
  },
  PLAYLIST: {
    ref: 'playlist_refs',
    id: 'playlist_id',
    owner: 'owner_id',
    like: 'playlist_likes',
    repost: 'playlist_reposts',
    visible: playlistVisibleSql,
  },
};

const COUNTER: Record<Action, 'like_count' | 'repost_count'> = { like: 'like_count', repost: 'repost_count' };

export interface TargetRow {
  id: number;
  ownerId: number;
  durationSeconds: number | null;
  likeCount: number;
  repostCount: number;
}

export class EngagementRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The item if it is visible to the viewer (R2/R6 + R7, R14), else null. With `ignoreOwnerBan`
   * an item hidden only by its owner's ban is found too (undoing one's own like or repost).
   */
  async findVisible(type: TargetType, id: number, viewer: Viewer, ignoreOwnerBan = false): Promise<TargetRow | null> {
    const t = TARGETS[type];
    const duration = type === 'TRACK' ? 'x.duration_seconds' : 'NULL::int';
    const rows = await this.prisma.$queryRawUnsafe<TargetRow[]>(
      `SELECT x.${t.id} AS id, x.${t.owner} AS "ownerId", ${duration} AS "durationSeconds",
              x.like_count AS "likeCount", x.repost_count AS "repostCount"
         FROM ${t.ref} x
        WHERE x.${t.id} = $1 AND ${t.visible('x', '$2', '$3', ignoreOwnerBan ? 'true' : '$3')}`,
      id,
      viewer.id,
      viewer.isAdmin,
    );
    return rows[0] ?? null;
  }

  /**
   * Adds (or removes) the caller's like/repost. Idempotent through the primary key; when the row
   * really changed, the counter moves under the item's row lock and the new value is returned,
   * else the current value is read. Returns [changed, count]. R14: a banned user's rows are not
   * counted (BanCountsRepository recounts on ban and unban), so their change leaves the counter.
   */
  async apply(tx: SqlExecutor, action: Action, type: TargetType, id: number, userId: number, on: boolean): Promise<[boolean, number]> {
    const t = TARGETS[type];
    const table = action === 'like' ? t.like : t.repost;
    const counter = COUNTER[action];
    const changed = on
      ? await tx.$executeRawUnsafe(`INSERT INTO ${table} (user_id, ${t.id}, created_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING`, userId, id)
      : await tx.$executeRawUnsafe(`DELETE FROM ${table} WHERE user_id = $1 AND ${t.id} = $2`, userId, id);
    const rows =
      changed > 0
        ? await tx.$queryRawUnsafe<Array<{ n: number }>>(
            `UPDATE ${t.ref} SET ${counter} = GREATEST(${counter} + CASE WHEN ${bannedSql('$3')} THEN 0 ELSE $2 END, 0)
            WHERE ${t.id} = $1 RETURNING ${counter} AS n`,
            id,
            on ? 1 : -1,
            userId,
          )
        : await tx.$queryRawUnsafe<Array<{ n: number }>>(`SELECT ${counter} AS n FROM ${t.ref} WHERE ${t.id} = $1`, id);
    return [changed > 0, rows[0]?.n ?? 0];
  }

  /**
   * ENG-3/6/9/12: latest first, without users separated from the viewer by a block (R7), banned
   * users for all but admins (R14), nor private users for all but themselves and admins (R8);
   * the item's likeCount/repostCount still count the private ones.
   */
  async actors(action: Action, type: TargetType, id: number, viewer: Viewer, page: number, size: number) {
    const t = TARGETS[type];
    const table = action === 'like' ? t.like : t.repost;
    const admin = viewer.isAdmin ? 'true' : 'false';
    const join = `FROM ${table} e JOIN user_summaries u ON u.user_id = e.user_id AND NOT u.is_deleted`;
    const where = `WHERE e.${t.id} = $1 AND NOT ${blockedBetweenSql('$2', 'u.user_id')} AND ${notBannedSql('u.user_id', admin)}
        AND ${activityListedSql('u', '$2', admin)}`;
    const rows = await this.prisma.$queryRawUnsafe<UserListRow[]>(
      `SELECT ${userColumns('u')}, (mine.follower_id IS NOT NULL) AS "isFollowing"
         ${join}
         LEFT JOIN follows mine ON mine.follower_id = $2 AND mine.followee_id = u.user_id
         ${where}
        ORDER BY e.created_at DESC, u.user_id DESC
        LIMIT $3 OFFSET $4`,
      id,
      viewer.id,
      size,
      page * size,
    );
    const [count] = await this.prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total ${join} ${where}`, id, viewer.id);
    return { rows, total: count?.total ?? 0 };
  }
}

/** What the services need of likes and reposts (unit tests give a fake). */
export type EngagementStore = Pick<EngagementRepository, 'findVisible' | 'apply' | 'actors'>;

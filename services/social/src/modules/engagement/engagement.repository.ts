import { raw, sql, type Sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import {
  activityListedSql,
  bannedSql,
  blockedBetweenSql,
  col,
  notBannedSql,
  playlistVisibleSql,
  trackVisibleSql,
  userColumns,
  type SqlArg,
} from '../users/user-sql.js';
import type { Viewer } from '../users/viewer.js';
import type { UserListRow } from '../follows/follows.repository.js';

export type TargetType = 'TRACK' | 'PLAYLIST';
export type Action = 'like' | 'repost';

/** Where each engageable item lives in social's database. Table and column names are constants, never input. */
interface TargetTables {
  ref: Sql;
  id: Sql;
  owner: Sql;
  like: Sql;
  repost: Sql;
  visible: (alias: string, viewer: SqlArg, admin: SqlArg, banExempt?: SqlArg) => Sql;
}

const TARGETS: Record<TargetType, TargetTables> = {
  TRACK: {
    ref: raw('track_refs'),
    id: raw('track_id'),
    owner: raw('artist_id'),
    like: raw('track_likes'),
    repost: raw('track_reposts'),
    visible: trackVisibleSql,
  },
  PLAYLIST: {
    ref: raw('playlist_refs'),
    id: raw('playlist_id'),
    owner: raw('owner_id'),
    like: raw('playlist_likes'),
    repost: raw('playlist_reposts'),
    visible: playlistVisibleSql,
  },
};

const COUNTER: Record<Action, Sql> = { like: raw('like_count'), repost: raw('repost_count') };

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
    const duration = type === 'TRACK' ? sql`x.duration_seconds` : sql`NULL::int`;
    const rows = await this.prisma.$queryRaw<TargetRow[]>(
      sql`SELECT x.${t.id} AS id, x.${t.owner} AS "ownerId", ${duration} AS "durationSeconds",
              x.like_count AS "likeCount", x.repost_count AS "repostCount"
         FROM ${t.ref} x
        WHERE x.${t.id} = ${id} AND ${t.visible('x', viewer.id, viewer.isAdmin, ignoreOwnerBan ? true : viewer.isAdmin)}`,
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
      ? await tx.$executeRaw(sql`INSERT INTO ${table} (user_id, ${t.id}, created_at) VALUES (${userId}, ${id}, now()) ON CONFLICT DO NOTHING`)
      : await tx.$executeRaw(sql`DELETE FROM ${table} WHERE user_id = ${userId} AND ${t.id} = ${id}`);
    const rows =
      changed > 0
        ? await tx.$queryRaw<Array<{ n: number }>>(
            sql`UPDATE ${t.ref} SET ${counter} = GREATEST(${counter} + CASE WHEN ${bannedSql(userId)} THEN 0 ELSE ${on ? 1 : -1} END, 0)
            WHERE ${t.id} = ${id} RETURNING ${counter} AS n`,
          )
        : await tx.$queryRaw<Array<{ n: number }>>(sql`SELECT ${counter} AS n FROM ${t.ref} WHERE ${t.id} = ${id}`);
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
    const admin = viewer.isAdmin;
    const join = sql`FROM ${table} e JOIN user_summaries u ON u.user_id = e.user_id AND NOT u.is_deleted`;
    const where = sql`WHERE e.${t.id} = ${id} AND NOT ${blockedBetweenSql(viewer.id, col('u.user_id'))} AND ${notBannedSql(col('u.user_id'), admin)}
        AND ${activityListedSql('u', viewer.id, admin)}`;
    const rows = await this.prisma.$queryRaw<UserListRow[]>(
      sql`SELECT ${userColumns('u')}, (mine.follower_id IS NOT NULL) AS "isFollowing"
         ${join}
         LEFT JOIN follows mine ON mine.follower_id = ${viewer.id} AND mine.followee_id = u.user_id
         ${where}
        ORDER BY e.created_at DESC, u.user_id DESC
        LIMIT ${size} OFFSET ${page * size}`,
    );
    const [count] = await this.prisma.$queryRaw<Array<{ total: number }>>(sql`SELECT count(*)::int AS total ${join} ${where}`);
    return { rows, total: count?.total ?? 0 };
  }
}

/** What the services need of likes and reposts (unit tests give a fake). */
export type EngagementStore = Pick<EngagementRepository, 'findVisible' | 'apply' | 'actors'>;

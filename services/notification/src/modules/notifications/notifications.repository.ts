import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type { NotificationType, ResourceType } from '../../generated/prisma/enums.js';

export type Db = PrismaClient | Prisma.TransactionClient;

/** A notification with everything its record shows, read in one query (no per-item lookups). */
export interface NotificationViewRow {
  id: number;
  type: NotificationType;
  resourceType: ResourceType;
  resourceId: number;
  conversationId: number | null;
  isRead: boolean;
  createdAt: Date;
  actorId: number;
  storedTitle: string | null;
  storedUrl: string | null;
  actorUsername: string | null;
  actorDisplayName: string | null;
  actorAvatarUrl: string | null;
  actorTier: string | null;
  actorFollowerCount: number | null;
  actorTrackCount: number | null;
  /** The recipient follows the actor (User summary isFollowing). */
  actorFollowed: boolean;
  trackTitle: string | null;
  trackSlug: string | null;
  trackOwner: string | null;
  playlistTitle: string | null;
  playlistSlug: string | null;
  playlistOwner: string | null;
}

/**
 * What a recipient is shown (R7, R14): nothing from a banned actor, nothing across a block either
 * way, nothing about a deleted track or playlist. Applied to lists and to both unread counts, so
 * the counts always match what NOT-1 lists.
 */
const VISIBLE = Prisma.sql`
      NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = n.actor_id)
  AND NOT EXISTS (SELECT 1 FROM blocks k
                   WHERE (k.blocker_id = n.recipient_id AND k.blocked_id = n.actor_id)
                      OR (k.blocker_id = n.actor_id AND k.blocked_id = n.recipient_id))
  AND NOT EXISTS (SELECT 1 FROM track_refs dt
                   WHERE n.resource_type = 'TRACK' AND dt.track_id = n.resource_id AND dt.is_deleted)
  AND NOT EXISTS (SELECT 1 FROM playlist_refs dp
                   WHERE n.resource_type = 'PLAYLIST' AND dp.playlist_id = n.resource_id AND dp.is_deleted)`;

const VIEW_COLUMNS = Prisma.sql`
  n.id, n.type, n.resource_type AS "resourceType", n.resource_id AS "resourceId",
  n.conversation_id AS "conversationId", n.is_read AS "isRead", n.created_at AS "createdAt",
  n.actor_id AS "actorId", n.target_title AS "storedTitle", n.target_url AS "storedUrl",
  u.username AS "actorUsername", u.display_name AS "actorDisplayName", u.avatar_url AS "actorAvatarUrl",
  u.tier AS "actorTier", u.follower_count AS "actorFollowerCount", u.track_count AS "actorTrackCount",
  EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = n.recipient_id AND f.followee_id = n.actor_id) AS "actorFollowed",
  t.title AS "trackTitle", t.track_slug AS "trackSlug", tu.username AS "trackOwner",
  p.title AS "playlistTitle", p.playlist_slug AS "playlistSlug", pu.username AS "playlistOwner"`;

const VIEW_JOINS = Prisma.sql`
  LEFT JOIN user_summaries u ON u.user_id = n.actor_id
  LEFT JOIN track_refs t ON n.resource_type = 'TRACK' AND t.track_id = n.resource_id
  LEFT JOIN user_summaries tu ON tu.user_id = t.artist_id
  LEFT JOIN playlist_refs p ON n.resource_type = 'PLAYLIST' AND p.playlist_id = n.resource_id
  LEFT JOIN user_summaries pu ON pu.user_id = p.owner_id`;

export class NotificationsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** NOT-1: one query for the page (records fully joined), one for the total. */
  async page(recipientId: number, unreadOnly: boolean, page: number, size: number): Promise<{ rows: NotificationViewRow[]; total: number }> {
    const where = Prisma.sql`n.recipient_id = ${recipientId} ${unreadOnly ? Prisma.sql`AND NOT n.is_read` : Prisma.empty} AND ${VISIBLE}`;
    const [rows, [count]] = await Promise.all([
      this.prisma.$queryRaw<NotificationViewRow[]>`
        SELECT ${VIEW_COLUMNS} FROM notifications n ${VIEW_JOINS}
         WHERE ${where}
         ORDER BY n.created_at DESC, n.id DESC
         LIMIT ${size} OFFSET ${page * size}`,
      this.prisma.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM notifications n WHERE ${where}`,
    ]);
    return { rows, total: count?.n ?? 0 };
  }

  async view(id: number, db: Db = this.prisma): Promise<NotificationViewRow | null> {
    const [row] = await db.$queryRaw<NotificationViewRow[]>`SELECT ${VIEW_COLUMNS} FROM notifications n ${VIEW_JOINS} WHERE n.id = ${id}`;
    return row ?? null;
  }

  /** NOT-2 (exact), and the source NOT-3's cached counter is corrected from. */
  async countUnread(recipientId: number, db: Db = this.prisma): Promise<number> {
    const [row] = await db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM notifications n WHERE n.recipient_id = ${recipientId} AND NOT n.is_read AND ${VISIBLE}`;
    return row?.n ?? 0;
  }

  /** NOT-4. */
  markAllRead(recipientId: number, db: Db = this.prisma): Promise<number> {
    return db.notification.updateMany({ where: { recipientId, isRead: false }, data: { isRead: true } }).then((r) => r.count);
  }
}

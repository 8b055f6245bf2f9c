import type { Notification, NotificationPreferences } from '@msp/contracts';
import { empty, sql } from '@msp/db';
import { NotificationCreated, NotificationsRead, writeOutbox } from '@msp/events';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { NotificationType, ResourceType } from '../../generated/prisma/enums.js';

export type Db = PrismaClient | Prisma.TransactionClient;

export interface DedupKey {
  recipientId: number;
  actorId: number;
  type: NotificationType;
  resourceType: ResourceType;
  resourceId: number;
}

export interface NewNotification extends DedupKey {
  conversationId: number | null;
  targetTitle: string | null;
  targetUrl: string | null;
  createdAt: Date;
}

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
const VISIBLE = sql`
      NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = n.actor_id)
  AND NOT EXISTS (SELECT 1 FROM blocks k
                   WHERE (k.blocker_id = n.recipient_id AND k.blocked_id = n.actor_id)
                      OR (k.blocker_id = n.actor_id AND k.blocked_id = n.recipient_id))
  AND NOT EXISTS (SELECT 1 FROM track_refs dt
                   WHERE n.resource_type = 'TRACK' AND dt.track_id = n.resource_id AND dt.is_deleted)
  AND NOT EXISTS (SELECT 1 FROM playlist_refs dp
                   WHERE n.resource_type = 'PLAYLIST' AND dp.playlist_id = n.resource_id AND dp.is_deleted)`;

const VIEW_COLUMNS = sql`
  n.id, n.type, n.resource_type AS "resourceType", n.resource_id AS "resourceId",
  n.conversation_id AS "conversationId", n.is_read AS "isRead", n.created_at AS "createdAt",
  n.actor_id AS "actorId", n.target_title AS "storedTitle", n.target_url AS "storedUrl",
  u.username AS "actorUsername", u.display_name AS "actorDisplayName", u.avatar_url AS "actorAvatarUrl",
  u.tier AS "actorTier", u.follower_count AS "actorFollowerCount", u.track_count AS "actorTrackCount",
  EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = n.recipient_id AND f.followee_id = n.actor_id) AS "actorFollowed",
  t.title AS "trackTitle", t.track_slug AS "trackSlug", tu.username AS "trackOwner",
  p.title AS "playlistTitle", p.playlist_slug AS "playlistSlug", pu.username AS "playlistOwner"`;

const VIEW_JOINS = sql`
  LEFT JOIN user_summaries u ON u.user_id = n.actor_id
  LEFT JOIN track_refs t ON n.resource_type = 'TRACK' AND t.track_id = n.resource_id
  LEFT JOIN user_summaries tu ON tu.user_id = t.artist_id
  LEFT JOIN playlist_refs p ON n.resource_type = 'PLAYLIST' AND p.playlist_id = n.resource_id
  LEFT JOIN user_summaries pu ON pu.user_id = p.owner_id`;

/** What NotificationsService needs of this repository (unit tests give fakes). */
export type NotificationsStore = Pick<NotificationsRepository, 'page' | 'countUnread' | 'markAllReadAndAnnounce'>;

export class NotificationsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** NOT-1: one query for the page (records fully joined), one for the total. */
  async page(recipientId: number, unreadOnly: boolean, page: number, size: number): Promise<{ rows: NotificationViewRow[]; total: number }> {
    const where = sql`n.recipient_id = ${recipientId} ${unreadOnly ? sql`AND NOT n.is_read` : empty} AND ${VISIBLE}`;
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

  /** NOT-4 with its WS-3 NOTIFICATIONS_READ event in the same transaction; the unread count left. */
  markAllReadAndAnnounce(recipientId: number): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      await this.markAllRead(recipientId, tx);
      const left = await this.countUnread(recipientId, tx);
      await writeOutbox(tx, NotificationsRead, { recipientId, unreadCount: left });
      return left;
    });
  }

  /** R7/R14 as notification sees them: a block either way, or either user banned. */
  async relationFlags(tx: Prisma.TransactionClient, recipientId: number, actorId: number): Promise<{ blocked: boolean; banned: boolean }> {
    const [flags] = await tx.$queryRaw<Array<{ blocked: boolean; banned: boolean }>>`
      SELECT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = ${recipientId} AND blocked_id = ${actorId})
                                            OR (blocker_id = ${actorId} AND blocked_id = ${recipientId})) AS blocked,
             EXISTS (SELECT 1 FROM banned_users WHERE user_id IN (${recipientId}, ${actorId})) AS banned`;
    return { blocked: flags?.blocked ?? false, banned: flags?.banned ?? false };
  }

  preferencesOf(tx: Prisma.TransactionClient, userId: number): Promise<Record<keyof NotificationPreferences, boolean> | null> {
    return tx.notificationPreference.findUnique({
      where: { userId },
      select: { notifyOnFollow: true, notifyOnLike: true, notifyOnRepost: true, notifyOnComment: true, notifyOnDM: true },
    });
  }

  /**
   * Claims the dedup key of (recipient, actor, type, resource): wins only if new or last used at
   * least `windowMs` ago; a concurrent claim waits on the row lock and then sees the moved
   * timestamp, so it cannot win too.
   */
  async claimDedupKey(tx: Prisma.TransactionClient, key: DedupKey, at: Date, windowMs: number): Promise<boolean> {
    const claimed = await tx.$queryRaw<unknown[]>`
      INSERT INTO notification_dedup (recipient_id, actor_id, type, resource_type, resource_id, last_at)
      VALUES (${key.recipientId}, ${key.actorId}, ${key.type}::notification_type, ${key.resourceType}::resource_type, ${key.resourceId}, ${at})
      ON CONFLICT (recipient_id, actor_id, type, resource_type, resource_id)
      DO UPDATE SET last_at = EXCLUDED.last_at
      WHERE notification_dedup.last_at <= EXCLUDED.last_at - make_interval(secs => ${windowMs / 1000})
      RETURNING 1`;
    return claimed.length > 0;
  }

  async insert(tx: Prisma.TransactionClient, data: NewNotification): Promise<number> {
    const row = await tx.notification.create({ data, select: { id: true } });
    return row.id;
  }

  /** Title and web path parts of a track or playlist copy, for the snapshot kept with a notification. */
  async targetOf(
    tx: Prisma.TransactionClient,
    resourceType: 'TRACK' | 'PLAYLIST',
    id: number,
  ): Promise<{ title: string; slug: string; owner: string | null } | null> {
    const rows =
      resourceType === 'TRACK'
        ? await tx.$queryRaw<Array<{ title: string; slug: string; owner: string | null }>>`
            SELECT t.title, t.track_slug AS slug, u.username AS owner FROM track_refs t
              LEFT JOIN user_summaries u ON u.user_id = t.artist_id WHERE t.track_id = ${id}`
        : await tx.$queryRaw<Array<{ title: string; slug: string; owner: string | null }>>`
            SELECT p.title, p.playlist_slug AS slug, u.username AS owner FROM playlist_refs p
              LEFT JOIN user_summaries u ON u.user_id = p.owner_id WHERE p.playlist_id = ${id}`;
    return rows[0] ?? null;
  }

  async usernameOf(tx: Prisma.TransactionClient, userId: number): Promise<string | null> {
    const row = await tx.userSummary.findUnique({ where: { userId }, select: { username: true } });
    return row?.username ?? null;
  }

  /** NotificationCreated (WS-3 and push) in the transaction that stored the notification. */
  async announceCreated(tx: Prisma.TransactionClient, event: { recipientId: number; notification: Notification; unreadCount: number }): Promise<void> {
    await writeOutbox(tx, NotificationCreated, event);
  }

  /** Dedup keys past the window can no longer suppress anything. */
  deleteDedupKeysBefore(cutoff: Date): Promise<number> {
    return this.prisma.notificationDedup.deleteMany({ where: { lastAt: { lt: cutoff } } }).then((r) => r.count);
  }
}

import { NotificationCreated, writeOutbox } from '@msp/events';
import type { NotificationPreferences, NotificationType } from '@msp/contracts';
import type { Prisma } from '../../generated/prisma/client.js';
import { toNotification, webPaths } from './notification.mapper.js';
import type { NotificationsRepository } from './notifications.repository.js';

export interface NotificationInput {
  recipientId: number;
  actorId: number;
  type: NotificationType;
  resourceType: 'TRACK' | 'PLAYLIST' | 'USER';
  resourceId: number;
  conversationId?: number | null;
}

export type CreateOutcome = 'created' | 'own-action' | 'blocked' | 'banned' | 'preference-off' | 'duplicate';

/** R15: which preference governs each type (notifyOnComment covers COMMENT and REPLY). */
export const PREFERENCE_OF: Record<NotificationType, keyof NotificationPreferences> = {
  FOLLOW: 'notifyOnFollow',
  LIKE: 'notifyOnLike',
  REPOST: 'notifyOnRepost',
  COMMENT: 'notifyOnComment',
  REPLY: 'notifyOnComment',
  DM: 'notifyOnDM',
};

/** The R15 window in which one actor, type and resource give at most one notification. */
export const DEDUP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Creates notifications from domain events, inside the consumer's transaction: the notification,
 * its dedup key and the NotificationCreated event (WS-3 and push consumers) commit together.
 */
export class NotificationCreator {
  constructor(private readonly repo: NotificationsRepository) {}

  async create(tx: Prisma.TransactionClient, input: NotificationInput, at: Date): Promise<CreateOutcome> {
    const { recipientId, actorId } = input;
    if (recipientId === actorId) return 'own-action';
    const [flags] = await tx.$queryRaw<Array<{ blocked: boolean; banned: boolean }>>`
      SELECT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = ${recipientId} AND blocked_id = ${actorId})
                                            OR (blocker_id = ${actorId} AND blocked_id = ${recipientId})) AS blocked,
             EXISTS (SELECT 1 FROM banned_users WHERE user_id IN (${recipientId}, ${actorId})) AS banned`;
    if (flags?.blocked) return 'blocked';
    if (flags?.banned) return 'banned';
    const preferences = await tx.notificationPreference.findUnique({ where: { userId: recipientId } });
    if (preferences && preferences[PREFERENCE_OF[input.type]] === false) return 'preference-off';

    // The key wins only if new or last used ≥ 24 h ago; a concurrent claim waits on the row lock
    // and then sees the moved timestamp, so it cannot win too.
    const claimed = await tx.$queryRaw<unknown[]>`
      INSERT INTO notification_dedup (recipient_id, actor_id, type, resource_type, resource_id, last_at)
      VALUES (${recipientId}, ${actorId}, ${input.type}::notification_type, ${input.resourceType}::resource_type, ${input.resourceId}, ${at})
      ON CONFLICT (recipient_id, actor_id, type, resource_type, resource_id)
      DO UPDATE SET last_at = EXCLUDED.last_at
      WHERE notification_dedup.last_at <= EXCLUDED.last_at - make_interval(secs => ${DEDUP_WINDOW_MS / 1000})
      RETURNING 1`;
    if (claimed.length === 0) return 'duplicate';

    const snapshot = await this.targetSnapshot(tx, input);
    const row = await tx.notification.create({
      data: {
        recipientId,
        actorId,
        type: input.type,
        resourceType: input.resourceType,
        resourceId: input.resourceId,
        conversationId: input.conversationId ?? null,
        targetTitle: snapshot.title,
        targetUrl: snapshot.url,
        createdAt: at,
      },
      select: { id: true },
    });
    const view = await this.repo.view(row.id, tx);
    const unreadCount = await this.repo.countUnread(recipientId, tx);
    if (view) await writeOutbox(tx, NotificationCreated, { recipientId, notification: toNotification(view), unreadCount });
    return 'created';
  }

  /** What the target looked like at creation: the fallback when a copy is gone later. */
  private async targetSnapshot(tx: Prisma.TransactionClient, input: NotificationInput): Promise<{ title: string | null; url: string | null }> {
    if (input.type === 'DM' && input.conversationId) return { title: null, url: webPaths.conversation(input.conversationId) };
    if (input.resourceType === 'TRACK') {
      const [t] = await tx.$queryRaw<Array<{ title: string; slug: string; owner: string | null }>>`
        SELECT t.title, t.track_slug AS slug, u.username AS owner FROM track_refs t
          LEFT JOIN user_summaries u ON u.user_id = t.artist_id WHERE t.track_id = ${input.resourceId}`;
      return { title: t?.title ?? null, url: t?.owner ? webPaths.track(t.owner, t.slug) : null };
    }
    if (input.resourceType === 'PLAYLIST') {
      const [p] = await tx.$queryRaw<Array<{ title: string; slug: string; owner: string | null }>>`
        SELECT p.title, p.playlist_slug AS slug, u.username AS owner FROM playlist_refs p
          LEFT JOIN user_summaries u ON u.user_id = p.owner_id WHERE p.playlist_id = ${input.resourceId}`;
      return { title: p?.title ?? null, url: p?.owner ? webPaths.playlist(p.owner, p.slug) : null };
    }
    const actor = await tx.userSummary.findUnique({ where: { userId: input.actorId }, select: { username: true } });
    return { title: null, url: actor ? webPaths.profile(actor.username) : null };
  }
}

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
  /** A platform notice's own title and link (WEBHOOK_DISABLED: the webhook's URL). */
  target?: { title: string | null; url: string | null };
}

export type CreateOutcome = 'created' | 'own-action' | 'blocked' | 'banned' | 'preference-off' | 'duplicate';

/**
 * R15: which preference governs each type (notifyOnComment covers COMMENT and REPLY). Null: a
 * platform notice (duplicate detection, docs/fingerprints.md), not someone's action. No
 * preference, block or own-action rule holds it back; the 24-h dedup still applies.
 */
export const PREFERENCE_OF: Record<NotificationType, keyof NotificationPreferences | null> = {
  FOLLOW: 'notifyOnFollow',
  LIKE: 'notifyOnLike',
  REPOST: 'notifyOnRepost',
  COMMENT: 'notifyOnComment',
  REPLY: 'notifyOnComment',
  DM: 'notifyOnDM',
  DUPLICATE_UPLOAD: null,
  UPLOAD_HELD_BACK: null,
  TRACK_COPY_DETECTED: null,
  EXPORT_READY: null,
  WEBHOOK_DISABLED: null,
};

/** The R15 window in which one actor, type and resource give at most one notification. */
export const DEDUP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Creates notifications from domain events, inside the consumer's transaction: the notification,
 * its dedup key and the NotificationCreated event (WS-3 and push consumers) commit together.
 */
/** What the creator needs of the repository (a fake in the unit tests). */
export type NotificationStore = Pick<
  NotificationsRepository,
  'relationFlags' | 'preferencesOf' | 'claimDedupKey' | 'insert' | 'targetOf' | 'usernameOf' | 'view' | 'countUnread' | 'announceCreated'
>;

export class NotificationCreator {
  constructor(private readonly store: NotificationStore) {}

  /** R15, in order: never one's own action, never across a block or a ban, the recipient's preference, one per 24 h. */
  async create(tx: Prisma.TransactionClient, input: NotificationInput, at: Date): Promise<CreateOutcome> {
    const { recipientId, actorId } = input;
    const preference = PREFERENCE_OF[input.type];
    if (preference !== null) {
      if (recipientId === actorId) return 'own-action';
      const flags = await this.store.relationFlags(tx, recipientId, actorId);
      if (flags.blocked) return 'blocked';
      if (flags.banned) return 'banned';
      const preferences = await this.store.preferencesOf(tx, recipientId);
      if (preferences && preferences[preference] === false) return 'preference-off';
    }
    const key = { recipientId, actorId, type: input.type, resourceType: input.resourceType, resourceId: input.resourceId };
    if (!(await this.store.claimDedupKey(tx, key, at, DEDUP_WINDOW_MS))) return 'duplicate';

    const snapshot = await this.targetSnapshot(tx, input);
    const id = await this.store.insert(tx, {
      ...key,
      conversationId: input.conversationId ?? null,
      targetTitle: snapshot.title,
      targetUrl: snapshot.url,
      createdAt: at,
    });
    const view = await this.store.view(id, tx);
    const unreadCount = await this.store.countUnread(recipientId, tx);
    if (view) await this.store.announceCreated(tx, { recipientId, notification: toNotification(view), unreadCount });
    return 'created';
  }

  /** What the target looked like at creation: the fallback when a copy is gone later. */
  private async targetSnapshot(tx: Prisma.TransactionClient, input: NotificationInput): Promise<{ title: string | null; url: string | null }> {
    if (input.target) return input.target;
    if (input.type === 'DM' && input.conversationId) return { title: null, url: webPaths.conversation(input.conversationId) };
    if (input.resourceType === 'TRACK' || input.resourceType === 'PLAYLIST') {
      const target = await this.store.targetOf(tx, input.resourceType, input.resourceId);
      const path = input.resourceType === 'TRACK' ? webPaths.track : webPaths.playlist;
      return { title: target?.title ?? null, url: target?.owner ? path(target.owner, target.slug) : null };
    }
    const username = await this.store.usernameOf(tx, input.actorId);
    return { title: null, url: username ? webPaths.profile(username) : null };
  }
}

import {
  CommentAdded,
  DurableConsumer,
  ItemLiked,
  ItemReposted,
  MessageSent,
  PlaylistChanged,
  PlaylistDeleted,
  TrackChanged,
  TrackDeleted,
  TrackDuplicateFound,
  TrackPublished,
  UserFollowed,
  type NatsConnection,
} from '@msp/events';
import type { NotificationPreferences, NotificationType } from '@msp/contracts';
import { bansCopy, blocksCopy, followsCopy, onEvent, startProjection, type Logger } from '@msp/runtime';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { toNotification, webPaths } from '../notifications/notification.mapper.js';
import type { NotificationsRepository } from '../notifications/notifications.repository.js';
import { projectionsRepository as projections } from './projections.repository.js';

type Tx = Prisma.TransactionClient;

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

/** What the creator needs of the repository (a fake in the unit tests). */
export type NotificationStore = Pick<
  NotificationsRepository,
  'relationFlags' | 'preferencesOf' | 'claimDedupKey' | 'insert' | 'targetOf' | 'usernameOf' | 'view' | 'countUnread' | 'announceCreated'
>;

/**
 * Creates notifications from domain events, inside the consumer's transaction: the notification,
 * its dedup key and the NotificationCreated event (WS-3 and push consumers) commit together.
 * Shared by every consumer that notifies (here, export-ready, webhook-disabled).
 */
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
type TrackDuplicateFoundData = (typeof TrackDuplicateFound.schema)['_output'];

interface Deps {
  nc: NatsConnection;
  prisma: PrismaClient;
  logger: Logger;
  creator: NotificationCreator;
}

/**
 * R15 from social's events, in stream order in ONE consumer, so a block and the events around it
 * apply in the order social committed them. Blocks are copied here too (R7: nothing is created
 * or shown across a block), and follows (the actor's isFollowing as the recipient sees it).
 */
function socialActivity(deps: Deps) {
  const { creator } = deps;
  return startProjection<Tx>(
    {
      service: 'notification',
      name: 'social-activity',
      from: 'social',
      steps: [
        ...followsCopy(projections),
        ...blocksCopy(projections),
        onEvent(UserFollowed, (d, tx: Tx) =>
          creator.create(
            tx,
            { recipientId: d.followeeId, actorId: d.followerId, type: 'FOLLOW', resourceType: 'USER', resourceId: d.followerId },
            new Date(d.at),
          ),
        ),
        onEvent(ItemLiked, (d, tx: Tx) =>
          creator.create(tx, { recipientId: d.ownerId, actorId: d.userId, type: 'LIKE', resourceType: d.targetType, resourceId: d.targetId }, new Date(d.at)),
        ),
        onEvent(ItemReposted, (d, tx: Tx) =>
          creator.create(tx, { recipientId: d.ownerId, actorId: d.userId, type: 'REPOST', resourceType: d.targetType, resourceId: d.targetId }, new Date(d.at)),
        ),
        onEvent(CommentAdded, (d, tx: Tx) => {
          // A reply notifies the author of the comment it answers; a top-level comment the artist.
          const reply = d.replyToCommentId !== null && d.parentAuthorId !== null;
          return creator.create(
            tx,
            {
              recipientId: reply ? d.parentAuthorId! : d.trackOwnerId,
              actorId: d.authorId,
              type: reply ? 'REPLY' : 'COMMENT',
              resourceType: 'TRACK',
              resourceId: d.trackId,
            },
            new Date(d.at),
          );
        }),
      ],
    },
    { nc: deps.nc, db: deps.prisma, logger: deps.logger },
  );
}

/** DM notifications (R15, R16) from messaging; WS-4 itself is the realtime consumer's job. */
function directMessages(deps: Deps) {
  return new DurableConsumer({ nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification', name: 'dm-notifications', from: 'messaging' }).on(
    MessageSent,
    async (d, _e, tx) => {
      await deps.creator.create(
        tx,
        { recipientId: d.recipientId, actorId: d.senderId, type: 'DM', resourceType: 'USER', resourceId: d.senderId, conversationId: d.conversationId },
        new Date(d.at),
      );
    },
  );
}

/**
 * Duplicate detection (docs/fingerprints.md), in the same consumer as the track copies so the new
 * track's title and path are there first. Platform notices: the recipient is their own actor (no
 * other user is named, so no block hides them). Same artist: DUPLICATE_UPLOAD about the new track.
 * Another artist's track: UPLOAD_HELD_BACK to the uploader about the held track, and
 * TRACK_COPY_DETECTED to the original's artist about their original (the held copy they cannot open).
 */
async function duplicateNotices(creator: NotificationCreator, tx: Prisma.TransactionClient, d: TrackDuplicateFoundData): Promise<void> {
  const at = new Date(d.at);
  if (d.sameArtist) {
    await creator.create(tx, { recipientId: d.artistId, actorId: d.artistId, type: 'DUPLICATE_UPLOAD', resourceType: 'TRACK', resourceId: d.trackId }, at);
    return;
  }
  await creator.create(tx, { recipientId: d.artistId, actorId: d.artistId, type: 'UPLOAD_HELD_BACK', resourceType: 'TRACK', resourceId: d.trackId }, at);
  await creator.create(
    tx,
    { recipientId: d.duplicateArtistId, actorId: d.duplicateArtistId, type: 'TRACK_COPY_DETECTED', resourceType: 'TRACK', resourceId: d.duplicateOfTrackId },
    at,
  );
}

/** Titles and slugs of tracks and playlists (targetTitle, targetUrl), from catalog. */
function catalogRefs(deps: Deps) {
  return new DurableConsumer({ nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification', name: 'catalog-refs', from: 'catalog' })
    .on(TrackChanged, (d, _e, tx) => projections.upsertTrack(tx, d))
    .on(TrackPublished, (d, _e, tx) => projections.upsertTrack(tx, d))
    .on(TrackDeleted, (d, _e, tx) => projections.deleteTrack(tx, d.trackId))
    .on(TrackDuplicateFound, (d, _e, tx) => duplicateNotices(deps.creator, tx, d))
    .on(PlaylistChanged, (d, _e, tx) => projections.upsertPlaylist(tx, d))
    .on(PlaylistDeleted, (d, _e, tx) => projections.deletePlaylist(tx, d.playlistId));
}

/** R14: a banned user's notifications disappear for others (filtered at read), and none are created. */
function bans(deps: Deps) {
  return startProjection<Tx>(
    { service: 'notification', name: 'bans', from: 'identity', steps: bansCopy(projections) },
    { nc: deps.nc, db: deps.prisma, logger: deps.logger },
  );
}

/** Starts every consumer that turns other services' events into notifications or their inputs. */
export async function startActivityConsumers(deps: Deps): Promise<Array<{ stop(): Promise<void> }>> {
  const social = await socialActivity(deps);
  const others = [directMessages(deps), catalogRefs(deps)];
  for (const c of others) await c.start();
  return [social, ...others, await bans(deps)];
}

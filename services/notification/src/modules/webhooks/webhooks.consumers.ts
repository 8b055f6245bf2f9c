import {
  AppDeleted,
  AppGrantChanged,
  AppGrantRevoked,
  AppRegistered,
  AppSuspended,
  AppUpdated,
  CommentAdded,
  DurableConsumer,
  ItemLiked,
  ItemReposted,
  MessageSent,
  SubscriptionTierChanged,
  TrackPublished,
  UserFollowed,
  type EventDefinition,
  type EventEnvelope,
  type NatsConnection,
} from '@msp/events';
import type { Logger } from '@msp/runtime';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { webhookProjection, type Fanout } from './webhooks.repository.js';
import { deliveryBody, type WebhookEventType } from './webhooks.events.js';

interface Deps {
  nc: NatsConnection;
  prisma: PrismaClient;
  logger: Logger;
}

type Tx = Prisma.TransactionClient;

type DataOf<D> = D extends EventDefinition<infer T> ? T : never;

/** What one platform event becomes for the endpoints that may see it. */
function toFanout(
  envelope: EventEnvelope<unknown>,
  type: WebhookEventType,
  target: Pick<Fanout, 'subjectUserId' | 'resourceKey'> & Partial<Pick<Fanout, 'extraScopes' | 'ownerOnly'>>,
  data: Record<string, unknown>,
): Fanout {
  return {
    eventId: envelope.id,
    type,
    occurredAt: envelope.occurredAt,
    extraScopes: [],
    ownerOnly: false,
    ...target,
    body: deliveryBody(envelope.id, type, envelope.occurredAt, data),
  };
}

/** Events handled together (one transaction) per webhook consumer, at most. */
const FANOUT_BATCH = 500;

/** The resource an event is about: the deliveries' `resource_key`. */
export function resourceOf(envelope: EventEnvelope<unknown>): string | null {
  return fanoutOf(envelope)?.resourceKey ?? null;
}

/** The fan-out of a platform event (its payload validated), or null when webhooks do not send it. */
export function fanoutOf(e: EventEnvelope<unknown>): Fanout | null {
  switch (e.type) {
    case TrackPublished.type: {
      const d = e.data as DataOf<typeof TrackPublished>;
      return toFanout(
        e,
        'track.published',
        { subjectUserId: d.artistId, resourceKey: `track:${d.trackId}` },
        {
          trackId: d.trackId,
          artistId: d.artistId,
          title: d.title,
          trackSlug: d.trackSlug,
          genre: d.genre,
          durationSeconds: d.durationSeconds,
          publishedAt: d.publishedAt,
        },
      );
    }
    case ItemLiked.type: {
      const d = e.data as DataOf<typeof ItemLiked>;
      if (d.targetType !== 'TRACK') return null;
      return toFanout(
        e,
        'track.liked',
        { subjectUserId: d.ownerId, resourceKey: `track:${d.targetId}` },
        { trackId: d.targetId, ownerId: d.ownerId, userId: d.userId, likeCount: d.likeCount, at: d.at },
      );
    }
    case ItemReposted.type: {
      const d = e.data as DataOf<typeof ItemReposted>;
      if (d.targetType !== 'TRACK') return null;
      return toFanout(
        e,
        'track.reposted',
        { subjectUserId: d.ownerId, resourceKey: `track:${d.targetId}` },
        { trackId: d.targetId, ownerId: d.ownerId, userId: d.userId, repostCount: d.repostCount, at: d.at },
      );
    }
    case CommentAdded.type: {
      const d = e.data as DataOf<typeof CommentAdded>;
      return toFanout(
        e,
        'track.commented',
        { subjectUserId: d.trackOwnerId, resourceKey: `track:${d.trackId}` },
        {
          commentId: d.commentId,
          trackId: d.trackId,
          trackOwnerId: d.trackOwnerId,
          authorId: d.authorId,
          replyToCommentId: d.replyToCommentId,
          body: d.body,
          commentCount: d.commentCount,
          at: d.at,
        },
      );
    }
    case UserFollowed.type: {
      const d = e.data as DataOf<typeof UserFollowed>;
      return toFanout(
        e,
        'user.followed',
        { subjectUserId: d.followeeId, resourceKey: `user:${d.followeeId}` },
        { followerId: d.followerId, followeeId: d.followeeId, followerCount: d.followeeFollowerCount, at: d.at },
      );
    }
    case MessageSent.type: {
      const d = e.data as DataOf<typeof MessageSent>;
      return toFanout(
        e,
        'message.received',
        { subjectUserId: d.recipientId, resourceKey: `conversation:${d.conversationId}`, extraScopes: ['messages'] },
        { messageId: d.messageId, conversationId: d.conversationId, senderId: d.senderId, recipientId: d.recipientId, content: d.content, at: d.at },
      );
    }
    case SubscriptionTierChanged.type: {
      const d = e.data as DataOf<typeof SubscriptionTierChanged>;
      return toFanout(
        e,
        'subscription.changed',
        { subjectUserId: d.userId, resourceKey: `user:${d.userId}`, ownerOnly: true },
        { userId: d.userId, tier: d.tier, status: d.status, currentPeriodEnd: d.currentPeriodEnd },
      );
    }
    default:
      return null;
  }
}

/** A fan-out consumer's batch: the deliveries of all its events in one statement, in stream order. */
async function fanoutBatch(events: EventEnvelope<unknown>[], tx: Tx): Promise<void> {
  await webhookProjection.fanoutMany(
    tx,
    events.map(fanoutOf).filter((f): f is Fanout => f !== null),
  );
}

/**
 * Webhooks (docs/developer-platform.md): notification's copy of identity's apps and grants, and one
 * durable consumer per producing service that turns its events into deliveries (rows only: the
 * dispatcher sends them, so a slow endpoint never slows a producer or these consumers). Each
 * fan-out consumer takes the events waiting (up to FANOUT_BATCH) in one transaction and one
 * insert (`DurableConsumer.onBatch`), batch after batch in stream order, so the deliveries of a
 * resource are created in event order.
 */
export async function startWebhookConsumers(deps: Deps): Promise<{ stop(): Promise<void> }[]> {
  const base = { nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification' as const };
  const consumers = [
    new DurableConsumer({ ...base, name: 'webhook-apps', from: 'identity' })
      .on(AppRegistered, (d, _e, tx) => webhookProjection.upsertApp(tx, d))
      .on(AppUpdated, (d, _e, tx) => webhookProjection.upsertApp(tx, d))
      .on(AppSuspended, (d, _e, tx) => webhookProjection.upsertApp(tx, d))
      .on(AppDeleted, (d, _e, tx) => webhookProjection.deleteApp(tx, d.appId, d.ownerId))
      .on(AppGrantChanged, (d, _e, tx) => webhookProjection.grantChanged(tx, d))
      .on(AppGrantRevoked, (d, _e, tx) => webhookProjection.grantRevoked(tx, d)),
    new DurableConsumer({ ...base, name: 'webhooks-catalog', from: 'catalog' }).onBatch([TrackPublished], fanoutBatch, FANOUT_BATCH),
    new DurableConsumer({ ...base, name: 'webhooks-social', from: 'social' }).onBatch(
      [ItemLiked, ItemReposted, CommentAdded, UserFollowed] as EventDefinition<unknown>[],
      fanoutBatch,
      FANOUT_BATCH,
    ),
    new DurableConsumer({ ...base, name: 'webhooks-messaging', from: 'messaging' }).onBatch([MessageSent], fanoutBatch, FANOUT_BATCH),
    new DurableConsumer({ ...base, name: 'webhooks-billing', from: 'billing' }).onBatch([SubscriptionTierChanged], fanoutBatch, FANOUT_BATCH),
  ];
  for (const c of consumers) await c.start();
  return consumers;
}

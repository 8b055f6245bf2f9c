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

/** Queues one platform event for every endpoint that may see it (in the consumer's transaction). */
function fanout(
  tx: Tx,
  envelope: EventEnvelope<unknown>,
  type: WebhookEventType,
  target: Pick<Fanout, 'subjectUserId' | 'resourceKey'> & Partial<Pick<Fanout, 'extraScopes' | 'ownerOnly'>>,
  data: Record<string, unknown>,
): Promise<number> {
  return webhookProjection.fanout(tx, {
    eventId: envelope.id,
    type,
    occurredAt: envelope.occurredAt,
    extraScopes: [],
    ownerOnly: false,
    ...target,
    body: deliveryBody(envelope.id, type, envelope.occurredAt, data),
  });
}

/** Events handled at once per webhook consumer; events of one resource still go one at a time, in stream order. */
const FANOUT_CONCURRENCY = 8;

/** The resource an event is about: the consumers' order key, and the deliveries' `resource_key`. */
export function resourceOf(envelope: EventEnvelope<unknown>): string | null {
  const d = envelope.data as Record<string, unknown>;
  switch (envelope.type) {
    case TrackPublished.type:
      return `track:${d.trackId}`;
    case ItemLiked.type:
    case ItemReposted.type:
      return `${d.targetType === 'TRACK' ? 'track' : 'playlist'}:${d.targetId}`;
    case CommentAdded.type:
      return `track:${d.trackId}`;
    case UserFollowed.type:
      return `user:${d.followeeId}`;
    case MessageSent.type:
      return `conversation:${d.conversationId}`;
    case SubscriptionTierChanged.type:
      return `user:${d.userId}`;
    default:
      return null;
  }
}

/**
 * Webhooks (docs/developer-platform.md): notification's copy of identity's apps and grants, and one
 * durable consumer per producing service that turns its events into deliveries (rows only: the
 * dispatcher sends them, so a slow endpoint never slows a producer or these consumers). Each
 * fan-out consumer handles up to FANOUT_CONCURRENCY events at once but the events of one resource in
 * stream order (`orderKey`), so deliveries of one resource are created in event order.
 */
export async function startWebhookConsumers(deps: Deps): Promise<{ stop(): Promise<void> }[]> {
  const base = { nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification' as const };
  const fanoutBase = { ...base, concurrency: FANOUT_CONCURRENCY, orderKey: resourceOf };
  const consumers = [
    new DurableConsumer({ ...base, name: 'webhook-apps', from: 'identity' })
      .on(AppRegistered, (d, _e, tx) => webhookProjection.upsertApp(tx, d))
      .on(AppUpdated, (d, _e, tx) => webhookProjection.upsertApp(tx, d))
      .on(AppSuspended, (d, _e, tx) => webhookProjection.upsertApp(tx, d))
      .on(AppDeleted, (d, _e, tx) => webhookProjection.deleteApp(tx, d.appId, d.ownerId))
      .on(AppGrantChanged, (d, _e, tx) => webhookProjection.grantChanged(tx, d))
      .on(AppGrantRevoked, (d, _e, tx) => webhookProjection.grantRevoked(tx, d)),
    new DurableConsumer({ ...fanoutBase, name: 'webhooks-catalog', from: 'catalog' }).on(TrackPublished, async (d, e, tx) => {
      await fanout(
        tx,
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
    }),
    new DurableConsumer({ ...fanoutBase, name: 'webhooks-social', from: 'social' })
      .on(ItemLiked, async (d, e, tx) => {
        if (d.targetType !== 'TRACK') return;
        await fanout(
          tx,
          e,
          'track.liked',
          { subjectUserId: d.ownerId, resourceKey: `track:${d.targetId}` },
          {
            trackId: d.targetId,
            ownerId: d.ownerId,
            userId: d.userId,
            likeCount: d.likeCount,
            at: d.at,
          },
        );
      })
      .on(ItemReposted, async (d, e, tx) => {
        if (d.targetType !== 'TRACK') return;
        await fanout(
          tx,
          e,
          'track.reposted',
          { subjectUserId: d.ownerId, resourceKey: `track:${d.targetId}` },
          {
            trackId: d.targetId,
            ownerId: d.ownerId,
            userId: d.userId,
            repostCount: d.repostCount,
            at: d.at,
          },
        );
      })
      .on(CommentAdded, async (d, e, tx) => {
        await fanout(
          tx,
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
      })
      .on(UserFollowed, async (d, e, tx) => {
        await fanout(
          tx,
          e,
          'user.followed',
          { subjectUserId: d.followeeId, resourceKey: `user:${d.followeeId}` },
          {
            followerId: d.followerId,
            followeeId: d.followeeId,
            followerCount: d.followeeFollowerCount,
            at: d.at,
          },
        );
      }),
    new DurableConsumer({ ...fanoutBase, name: 'webhooks-messaging', from: 'messaging' }).on(MessageSent, async (d, e, tx) => {
      await fanout(
        tx,
        e,
        'message.received',
        { subjectUserId: d.recipientId, resourceKey: `conversation:${d.conversationId}`, extraScopes: ['messages'] },
        { messageId: d.messageId, conversationId: d.conversationId, senderId: d.senderId, recipientId: d.recipientId, content: d.content, at: d.at },
      );
    }),
    new DurableConsumer({ ...fanoutBase, name: 'webhooks-billing', from: 'billing' }).on(SubscriptionTierChanged, async (d, e, tx) => {
      await fanout(
        tx,
        e,
        'subscription.changed',
        { subjectUserId: d.userId, resourceKey: `user:${d.userId}`, ownerOnly: true },
        {
          userId: d.userId,
          tier: d.tier,
          status: d.status,
          currentPeriodEnd: d.currentPeriodEnd,
        },
      );
    }),
  ];
  for (const c of consumers) await c.start();
  return consumers;
}

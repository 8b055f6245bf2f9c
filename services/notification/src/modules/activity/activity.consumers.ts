import type { FastifyBaseLogger } from 'fastify';
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
  TrackPublished,
  UserBanned,
  UserBlocked,
  UserFollowed,
  UserUnbanned,
  UserUnblocked,
  UserUnfollowed,
  type NatsConnection,
  type PlaylistSnapshot,
  type TrackSnapshot,
} from '@msp/events';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { NotificationCreator } from '../notifications/notification.creator.js';

interface Deps {
  nc: NatsConnection;
  prisma: PrismaClient;
  logger: FastifyBaseLogger;
  creator: NotificationCreator;
}

type Tx = Prisma.TransactionClient;

/**
 * R15 from social's events, in stream order in ONE consumer, so a block and the events around it
 * apply in the order social committed them. Blocks are copied here too (R7: nothing is created
 * or shown across a block), and follows (the actor's isFollowing as the recipient sees it).
 */
function socialActivity(deps: Deps) {
  const { creator } = deps;
  return new DurableConsumer({ nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification', name: 'social-activity', from: 'social' })
    .on(UserFollowed, async (d, _e, tx) => {
      await tx.$executeRaw`INSERT INTO follows (follower_id, followee_id) VALUES (${d.followerId}, ${d.followeeId}) ON CONFLICT DO NOTHING`;
      await creator.create(tx, { recipientId: d.followeeId, actorId: d.followerId, type: 'FOLLOW', resourceType: 'USER', resourceId: d.followerId }, new Date(d.at));
    })
    .on(ItemLiked, async (d, _e, tx) => {
      await creator.create(tx, { recipientId: d.ownerId, actorId: d.userId, type: 'LIKE', resourceType: d.targetType, resourceId: d.targetId }, new Date(d.at));
    })
    .on(ItemReposted, async (d, _e, tx) => {
      await creator.create(tx, { recipientId: d.ownerId, actorId: d.userId, type: 'REPOST', resourceType: d.targetType, resourceId: d.targetId }, new Date(d.at));
    })
    .on(CommentAdded, async (d, _e, tx) => {
      // A reply notifies the author of the comment it answers; a top-level comment the artist.
      const reply = d.replyToCommentId !== null && d.parentAuthorId !== null;
      await creator.create(
        tx,
        { recipientId: reply ? d.parentAuthorId! : d.trackOwnerId, actorId: d.authorId, type: reply ? 'REPLY' : 'COMMENT', resourceType: 'TRACK', resourceId: d.trackId },
        new Date(d.at),
      );
    })
    .on(UserUnfollowed, async (d, _e, tx) => {
      await tx.$executeRaw`DELETE FROM follows WHERE follower_id = ${d.followerId} AND followee_id = ${d.followeeId}`;
    })
    .on(UserBlocked, async (d, _e, tx) => {
      // R7: a block removes follows both ways.
      await tx.$executeRaw`DELETE FROM follows WHERE (follower_id = ${d.blockerId} AND followee_id = ${d.blockedId})
                                                 OR (follower_id = ${d.blockedId} AND followee_id = ${d.blockerId})`;
      await tx.$executeRaw`INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (${d.blockerId}, ${d.blockedId}, ${new Date(d.at)}) ON CONFLICT DO NOTHING`;
    })
    .on(UserUnblocked, async (d, _e, tx) => {
      await tx.$executeRaw`DELETE FROM blocks WHERE blocker_id = ${d.blockerId} AND blocked_id = ${d.blockedId}`;
    });
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

async function upsertTrack(tx: Tx, s: TrackSnapshot) {
  await tx.$executeRaw`
    INSERT INTO track_refs (track_id, artist_id, title, track_slug) VALUES (${s.trackId}, ${s.artistId}, ${s.title}, ${s.trackSlug})
    ON CONFLICT (track_id) DO UPDATE SET artist_id = EXCLUDED.artist_id, title = EXCLUDED.title, track_slug = EXCLUDED.track_slug`;
}

async function upsertPlaylist(tx: Tx, s: PlaylistSnapshot) {
  await tx.$executeRaw`
    INSERT INTO playlist_refs (playlist_id, owner_id, title, playlist_slug) VALUES (${s.playlistId}, ${s.ownerId}, ${s.title}, ${s.playlistSlug})
    ON CONFLICT (playlist_id) DO UPDATE SET owner_id = EXCLUDED.owner_id, title = EXCLUDED.title, playlist_slug = EXCLUDED.playlist_slug`;
}

/** Titles and slugs of tracks and playlists (targetTitle, targetUrl), from catalog. */
function catalogRefs(deps: Deps) {
  return new DurableConsumer({ nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification', name: 'catalog-refs', from: 'catalog' })
    .on(TrackChanged, (d, _e, tx) => upsertTrack(tx, d))
    .on(TrackPublished, (d, _e, tx) => upsertTrack(tx, d))
    .on(TrackDeleted, async (d, _e, tx) => {
      await tx.$executeRaw`UPDATE track_refs SET is_deleted = true WHERE track_id = ${d.trackId}`;
    })
    .on(PlaylistChanged, (d, _e, tx) => upsertPlaylist(tx, d))
    .on(PlaylistDeleted, async (d, _e, tx) => {
      await tx.$executeRaw`UPDATE playlist_refs SET is_deleted = true WHERE playlist_id = ${d.playlistId}`;
    });
}

/** R14: a banned user's notifications disappear for others (filtered at read), and none are created. */
function bans(deps: Deps) {
  return new DurableConsumer({ nc: deps.nc, db: deps.prisma, logger: deps.logger, service: 'notification', name: 'bans', from: 'identity' })
    .on(UserBanned, async (d, _e, tx) => {
      await tx.$executeRaw`INSERT INTO banned_users (user_id, banned_at) VALUES (${d.userId}, ${new Date(d.bannedAt)})
        ON CONFLICT (user_id) DO UPDATE SET banned_at = EXCLUDED.banned_at`;
    })
    .on(UserUnbanned, async (d, _e, tx) => {
      await tx.$executeRaw`DELETE FROM banned_users WHERE user_id = ${d.userId}`;
    });
}

/** Starts every consumer that turns other services' events into notifications or their inputs. */
export async function startActivityConsumers(deps: Deps): Promise<Array<{ stop(): Promise<void> }>> {
  const consumers = [socialActivity(deps), directMessages(deps), catalogRefs(deps), bans(deps)];
  for (const c of consumers) await c.start();
  return consumers;
}

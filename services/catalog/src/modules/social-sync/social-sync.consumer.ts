import type { FastifyBaseLogger } from 'fastify';
import {
  CommentAdded,
  CommentDeleted,
  CountsRecounted,
  DurableConsumer,
  ItemLiked,
  ItemReposted,
  ItemUnliked,
  ItemUnreposted,
  UserBlocked,
  UserUnblocked,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import { bumpStat } from '../discovery/trending-stats.repository.js';
import { socialCopies, type EngagementKind } from './social-copies.repository.js';

/**
 * Catalog's copies of the engagement counts social owns (R9). Social's events carry the count
 * after each change, so the copy is SET, never incremented: redeliveries and replays cannot
 * drift it, and the stream's order (one message at a time) leaves the latest value in place.
 */
async function setCount(tx: SqlExecutor, column: 'like_count' | 'repost_count', d: { targetType: string; targetId: number }, count: number) {
  if (d.targetType === 'TRACK') await socialCopies.setTrackCount(tx, column, d.targetId, count);
  else if (d.targetType === 'PLAYLIST') await socialCopies.setPlaylistCount(tx, column, d.targetId, count);
}

type EngagementEvent = { userId: number; targetType: string; targetId: number; at: string };

/**
 * The local copy of a track like ('L') or repost ('R') and its trending count (DSC-2, DSC-7).
 * Each event is applied once (the consumer remembers event ids); the copy's primary key keeps a
 * replayed like from counting twice, and an undo subtracts from the day of the original action.
 */
async function engage(tx: SqlExecutor, kind: EngagementKind, d: EngagementEvent, on: boolean) {
  if (d.targetType !== 'TRACK') return;
  const column = kind === 'L' ? 'likes' : 'reposts';
  if (on) {
    const at = new Date(d.at);
    if (await socialCopies.addEngagement(tx, kind, d.userId, d.targetId, at)) await bumpStat(tx, d.targetId, at, column, 1);
    return;
  }
  for (const at of await socialCopies.removeEngagement(tx, kind, d.userId, d.targetId)) await bumpStat(tx, d.targetId, at, column, -1);
}

/** Starts the durable `catalog--social-sync` consumer of social's engagement, recount and block events. */
export async function startSocialSync<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'social-sync', from: 'social' })
    .on(ItemLiked, async (d, _e, tx) => {
      await setCount(tx, 'like_count', d, d.likeCount);
      await engage(tx, 'L', d, true);
    })
    .on(ItemUnliked, async (d, _e, tx) => {
      await setCount(tx, 'like_count', d, d.likeCount);
      await engage(tx, 'L', d, false);
    })
    .on(ItemReposted, async (d, _e, tx) => {
      await setCount(tx, 'repost_count', d, d.repostCount);
      await engage(tx, 'R', d, true);
    })
    .on(ItemUnreposted, async (d, _e, tx) => {
      await setCount(tx, 'repost_count', d, d.repostCount);
      await engage(tx, 'R', d, false);
    })
    .on(CommentAdded, async (d, _e, tx) => {
      await socialCopies.setTrackCount(tx, 'comment_count', d.trackId, d.commentCount);
      const at = new Date(d.at);
      if (await socialCopies.addComment(tx, d.commentId, d.trackId, d.replyToCommentId, at)) await bumpStat(tx, d.trackId, at, 'comments', 1);
    })
    .on(CommentDeleted, async (d, _e, tx) => {
      await socialCopies.setTrackCount(tx, 'comment_count', d.trackId, d.commentCount);
      // The comment and its replies (deleted with it) leave the days they were counted on.
      for (const at of await socialCopies.removeComment(tx, d.commentId)) await bumpStat(tx, d.trackId, at, 'comments', -1);
    })
    // R14: social recounted on a ban or unban (a banned user's likes, reposts and comments do not
    // count); the copies take the values. Trending day counters are left as they are.
    .on(CountsRecounted, (d, _e, tx) => socialCopies.applyRecount(tx, d.tracks, d.playlists))
    .on(UserBlocked, (d, _e, tx) => socialCopies.block(tx, d.blockerId, d.blockedId))
    .on(UserUnblocked, (d, _e, tx) => socialCopies.unblock(tx, d.blockerId, d.blockedId));
  await consumer.start();
  return consumer;
}

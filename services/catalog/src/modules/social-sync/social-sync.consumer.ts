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
import { bumpStat } from '../discovery/trending-stats.js';

/**
 * Catalog's copies of the engagement counts social owns (R9). Social's events carry the count
 * after each change, so the copy is SET, never incremented: redeliveries and replays cannot
 * drift it, and the stream's order (one message at a time) leaves the latest value in place.
 */
async function setTrackCount(tx: SqlExecutor, column: 'like_count' | 'repost_count' | 'comment_count', trackId: number, count: number) {
  await tx.$executeRawUnsafe(`UPDATE tracks SET ${column} = $2 WHERE id = $1`, trackId, count);
}

async function setPlaylistCount(tx: SqlExecutor, column: 'like_count' | 'repost_count', playlistId: number, count: number) {
  await tx.$executeRawUnsafe(`UPDATE playlists SET ${column} = $2 WHERE id = $1`, playlistId, count);
}

async function setCount(tx: SqlExecutor, column: 'like_count' | 'repost_count', d: { targetType: string; targetId: number }, count: number) {
  if (d.targetType === 'TRACK') await setTrackCount(tx, column, d.targetId, count);
  else if (d.targetType === 'PLAYLIST') await setPlaylistCount(tx, column, d.targetId, count);
}

type EngagementEvent = { userId: number; targetType: string; targetId: number; at: string };

/**
 * The local copy of a track like ('L') or repost ('R') and its trending count (DSC-2, DSC-7).
 * Each event is applied once (the consumer remembers event ids); the copy's primary key keeps a
 * replayed like from counting twice, and an undo subtracts from the day of the original action.
 */
async function engage(tx: SqlExecutor, kind: 'L' | 'R', d: EngagementEvent, on: boolean) {
  if (d.targetType !== 'TRACK') return;
  const column = kind === 'L' ? 'likes' : 'reposts';
  if (on) {
    const at = new Date(d.at);
    const added = await tx.$executeRawUnsafe(
      `INSERT INTO track_engagements (kind, user_id, track_id, created_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING`,
      kind,
      d.userId,
      d.targetId,
      at.toISOString(),
    );
    if (added > 0) await bumpStat(tx, d.targetId, at, column, 1);
    return;
  }
  const removed = await tx.$queryRawUnsafe<Array<{ createdAt: Date }>>(
    `DELETE FROM track_engagements WHERE kind = $1 AND user_id = $2 AND track_id = $3 RETURNING created_at AS "createdAt"`,
    kind,
    d.userId,
    d.targetId,
  );
  for (const row of removed) await bumpStat(tx, d.targetId, new Date(row.createdAt), column, -1);
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
      await setTrackCount(tx, 'comment_count', d.trackId, d.commentCount);
      const at = new Date(d.at);
      const added = await tx.$executeRawUnsafe(
        `INSERT INTO track_comments (comment_id, track_id, parent_id, created_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING`,
        d.commentId,
        d.trackId,
        d.replyToCommentId,
        at.toISOString(),
      );
      if (added > 0) await bumpStat(tx, d.trackId, at, 'comments', 1);
    })
    .on(CommentDeleted, async (d, _e, tx) => {
      await setTrackCount(tx, 'comment_count', d.trackId, d.commentCount);
      // The comment and its replies (deleted with it) leave the days they were counted on.
      const removed = await tx.$queryRawUnsafe<Array<{ createdAt: Date }>>(
        `DELETE FROM track_comments WHERE comment_id = $1 OR parent_id = $1 RETURNING created_at AS "createdAt"`,
        d.commentId,
      );
      for (const row of removed) await bumpStat(tx, d.trackId, new Date(row.createdAt), 'comments', -1);
    })
    // R14: social recounted on a ban or unban (a banned user's likes, reposts and comments do not
    // count); the copies take the values. Trending day counters are left as they are.
    .on(CountsRecounted, async (d, _e, tx) => {
      if (d.tracks.length > 0) {
        await tx.$executeRawUnsafe(
          `UPDATE tracks t SET like_count = x.l, repost_count = x.r, comment_count = x.c
             FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) AS x(id, l, r, c) WHERE t.id = x.id`,
          d.tracks.map((c) => c.trackId),
          d.tracks.map((c) => c.likeCount),
          d.tracks.map((c) => c.repostCount),
          d.tracks.map((c) => c.commentCount),
        );
      }
      if (d.playlists.length > 0) {
        await tx.$executeRawUnsafe(
          `UPDATE playlists p SET like_count = x.l, repost_count = x.r
             FROM unnest($1::int[], $2::int[], $3::int[]) AS x(id, l, r) WHERE p.id = x.id`,
          d.playlists.map((c) => c.playlistId),
          d.playlists.map((c) => c.likeCount),
          d.playlists.map((c) => c.repostCount),
        );
      }
    })
    .on(UserBlocked, async (d, _e, tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO user_blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, d.blockerId, d.blockedId);
    })
    .on(UserUnblocked, async (d, _e, tx) => {
      await tx.$executeRawUnsafe(`DELETE FROM user_blocks WHERE blocker_id = $1 AND blocked_id = $2`, d.blockerId, d.blockedId);
    });
  await consumer.start();
  return consumer;
}

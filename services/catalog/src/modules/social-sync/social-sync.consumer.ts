import type { FastifyBaseLogger } from 'fastify';
import {
  CommentAdded,
  CommentDeleted,
  DurableConsumer,
  ItemLiked,
  ItemReposted,
  ItemUnliked,
  ItemUnreposted,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';

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

/** Starts the durable `catalog--social-sync` consumer of social's engagement events. */
export async function startSocialSync<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'social-sync', from: 'social' })
    .on(ItemLiked, (d, _e, tx) => setCount(tx, 'like_count', d, d.likeCount))
    .on(ItemUnliked, (d, _e, tx) => setCount(tx, 'like_count', d, d.likeCount))
    .on(ItemReposted, (d, _e, tx) => setCount(tx, 'repost_count', d, d.repostCount))
    .on(ItemUnreposted, (d, _e, tx) => setCount(tx, 'repost_count', d, d.repostCount))
    .on(CommentAdded, (d, _e, tx) => setTrackCount(tx, 'comment_count', d.trackId, d.commentCount))
    .on(CommentDeleted, (d, _e, tx) => setTrackCount(tx, 'comment_count', d.trackId, d.commentCount));
  await consumer.start();
  return consumer;
}

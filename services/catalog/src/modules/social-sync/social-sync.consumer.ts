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
 * Playlist counts follow with the playlists issue (their rows do not exist yet).
 */
async function setTrackCount(tx: SqlExecutor, column: 'like_count' | 'repost_count' | 'comment_count', trackId: number, count: number) {
  await tx.$executeRawUnsafe(`UPDATE tracks SET ${column} = $2 WHERE id = $1`, trackId, count);
}

/** Starts the durable `catalog--social-sync` consumer of social's engagement events. */
export async function startSocialSync<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'social-sync', from: 'social' })
    .on(ItemLiked, async (d, _e, tx) => {
      if (d.targetType === 'TRACK') await setTrackCount(tx, 'like_count', d.targetId, d.likeCount);
    })
    .on(ItemUnliked, async (d, _e, tx) => {
      if (d.targetType === 'TRACK') await setTrackCount(tx, 'like_count', d.targetId, d.likeCount);
    })
    .on(ItemReposted, async (d, _e, tx) => {
      if (d.targetType === 'TRACK') await setTrackCount(tx, 'repost_count', d.targetId, d.repostCount);
    })
    .on(ItemUnreposted, async (d, _e, tx) => {
      if (d.targetType === 'TRACK') await setTrackCount(tx, 'repost_count', d.targetId, d.repostCount);
    })
    .on(CommentAdded, (d, _e, tx) => setTrackCount(tx, 'comment_count', d.trackId, d.commentCount))
    .on(CommentDeleted, (d, _e, tx) => setTrackCount(tx, 'comment_count', d.trackId, d.commentCount));
  await consumer.start();
  return consumer;
}

import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserBlocked, UserFollowed, UserUnfollowed, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { followsCopy } from './follows-copy.repository.js';

/**
 * Durable consumer `catalog--follows-copy`: catalog's copy of social's follows (`user_follows`),
 * from which the track presenter answers the artists' isFollowing without a call to social. One
 * message at a time in the stream's order, so a follow, an unfollow and a follow again end as
 * social ended; a block removes both directions, as social does (R7). A new deployment replays
 * what social's stream still holds (7 days).
 */
export async function startFollowsCopy<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'follows-copy', from: 'social' })
    .on(UserFollowed, (d, _e, tx) => followsCopy.follow(tx, d.followerId, d.followeeId))
    .on(UserUnfollowed, (d, _e, tx) => followsCopy.unfollow(tx, d.followerId, d.followeeId))
    .on(UserBlocked, (d, _e, tx) => followsCopy.unfollowBothWays(tx, d.blockerId, d.blockedId));
  await consumer.start();
  return consumer;
}

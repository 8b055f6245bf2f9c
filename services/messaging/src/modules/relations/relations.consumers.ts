import type { FastifyBaseLogger } from 'fastify';
import {
  DurableConsumer,
  UserBanned,
  UserBlocked,
  UserUnbanned,
  UserUnblocked,
  UserFollowed,
  UserUnfollowed,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';

interface ConsumerDeps<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}

/**
 * Messaging's copies of social's blocks (R7: MSG-2 and MSG-4 consult them locally, so a block
 * check never depends on social answering) and follows (isFollowing in User summaries). Events
 * arrive in stream order (concurrency 1), so block, unblock and block again end as social left them.
 */
export async function startRelationsConsumer<Tx extends SqlExecutor>(deps: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...deps, service: 'messaging', name: 'relations', from: 'social' })
    .on(UserFollowed, async (data, _e, tx) => {
      await tx.$executeRawUnsafe('INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', data.followerId, data.followeeId);
    })
    .on(UserUnfollowed, async (data, _e, tx) => {
      await tx.$executeRawUnsafe('DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2', data.followerId, data.followeeId);
    })
    .on(UserBlocked, async (data, _e, tx) => {
      // R7: a block removes follows both ways.
      await tx.$executeRawUnsafe(
        'DELETE FROM follows WHERE (follower_id = $1 AND followee_id = $2) OR (follower_id = $2 AND followee_id = $1)',
        data.blockerId,
        data.blockedId,
      );
      await tx.$executeRawUnsafe(
        'INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, $3::timestamptz) ON CONFLICT DO NOTHING',
        data.blockerId,
        data.blockedId,
        data.at,
      );
    })
    .on(UserUnblocked, async (data, _e, tx) => {
      await tx.$executeRawUnsafe('DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2', data.blockerId, data.blockedId);
    });
  await consumer.start();
  return consumer;
}

/** R14: a banned user's conversations and messages disappear for others until the ban is lifted. */
export async function startBansConsumer<Tx extends SqlExecutor>(deps: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...deps, service: 'messaging', name: 'bans', from: 'identity' })
    .on(UserBanned, async (data, _e, tx) => {
      await tx.$executeRawUnsafe(
        `INSERT INTO banned_users (user_id, banned_at) VALUES ($1, $2::timestamptz)
         ON CONFLICT (user_id) DO UPDATE SET banned_at = EXCLUDED.banned_at`,
        data.userId,
        data.bannedAt,
      );
    })
    .on(UserUnbanned, async (data, _e, tx) => {
      await tx.$executeRawUnsafe('DELETE FROM banned_users WHERE user_id = $1', data.userId);
    });
  await consumer.start();
  return consumer;
}

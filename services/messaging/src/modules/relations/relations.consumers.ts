import type { Logger } from '@msp/runtime';
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
import { relationsRepository } from './relations.repository.js';

interface ConsumerDeps<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
}

/**
 * Messaging's copies of social's blocks (R7: MSG-2 and MSG-4 consult them locally, so a block
 * check never depends on social answering) and follows (isFollowing in User summaries). Events
 * arrive in stream order (concurrency 1), so block, unblock and block again end as social left them.
 */
export async function startRelationsConsumer<Tx extends SqlExecutor>(deps: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...deps, service: 'messaging', name: 'relations', from: 'social' })
    .on(UserFollowed, (data, _e, tx) => relationsRepository.follow(tx, data.followerId, data.followeeId))
    .on(UserUnfollowed, (data, _e, tx) => relationsRepository.unfollow(tx, data.followerId, data.followeeId))
    .on(UserBlocked, (data, _e, tx) => relationsRepository.block(tx, data.blockerId, data.blockedId, data.at))
    .on(UserUnblocked, (data, _e, tx) => relationsRepository.unblock(tx, data.blockerId, data.blockedId));
  await consumer.start();
  return consumer;
}

/** R14: a banned user's conversations and messages disappear for others until the ban is lifted. */
export async function startBansConsumer<Tx extends SqlExecutor>(deps: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...deps, service: 'messaging', name: 'bans', from: 'identity' })
    .on(UserBanned, (data, _e, tx) => relationsRepository.ban(tx, data.userId, data.bannedAt))
    .on(UserUnbanned, (data, _e, tx) => relationsRepository.unban(tx, data.userId));
  await consumer.start();
  return consumer;
}

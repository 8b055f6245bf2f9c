import type { FastifyBaseLogger } from 'fastify';
import {
  DurableConsumer,
  UserBanned,
  UserFollowed,
  UserUnbanned,
  UserUnfollowed,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import { countFollow } from './insights.repository.js';
import { holdPlays } from './play-log.repository.js';

interface ConsumerDeps<Tx extends SqlExecutor> {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}

/**
 * Durable `catalog--insights-bans` (identity): R14, a banned listener's plays stop counting (held)
 * and count again after the unban; every count they touched changes in the event's transaction.
 * Holding and releasing only change rows not yet in that state, so a redelivery changes nothing.
 */
export async function startInsightsBans<Tx extends SqlExecutor>(options: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'insights-bans', from: 'identity' })
    .on(UserBanned, (d, _e, tx) => holdPlays(tx, d.userId, true))
    .on(UserUnbanned, (d, _e, tx) => holdPlays(tx, d.userId, false));
  await consumer.start();
  return consumer;
}

/**
 * Durable `catalog--insights-follows` (social): follows gained and lost per followed user and UTC
 * day (INS-2). Each event is applied once (the consumer remembers event ids in its transaction).
 */
export async function startInsightsFollows<Tx extends SqlExecutor>(options: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'insights-follows', from: 'social' })
    .on(UserFollowed, (d, _e, tx) => countFollow(tx, d.followeeId, d.at, true))
    .on(UserUnfollowed, (d, _e, tx) => countFollow(tx, d.followeeId, d.at, false));
  await consumer.start();
  return consumer;
}

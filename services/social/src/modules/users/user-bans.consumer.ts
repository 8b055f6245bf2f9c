import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserBanned, UserUnbanned, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { setBanned } from './user-bans.repository.js';

/** Starts the durable `social--user-bans` consumer of identity's ban events. */
export async function startUserBans<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'social', name: 'user-bans', from: 'identity' })
    .on(UserBanned, (d, _e, tx) => setBanned(tx, d.userId, true, d.bannedAt))
    .on(UserUnbanned, (d, _e, tx) => setBanned(tx, d.userId, false, null));
  await consumer.start();
  return consumer;
}

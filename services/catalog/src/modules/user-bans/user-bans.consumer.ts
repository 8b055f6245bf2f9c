import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserBanned, UserUnbanned, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { userBans } from './user-bans.repository.js';

/**
 * Starts the durable `catalog--user-bans` consumer of identity's ban events. R14 for discovery:
 * catalog marks banned users in its user projection so search, trending and stations leave their
 * content out in SQL (before paging).
 */
export async function startUserBans<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'user-bans', from: 'identity' })
    .on(UserBanned, (d, _e, tx) => userBans.set(tx, d.userId, true))
    .on(UserUnbanned, (d, _e, tx) => userBans.set(tx, d.userId, false));
  await consumer.start();
  return consumer;
}

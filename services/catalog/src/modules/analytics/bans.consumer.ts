import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserBanned, UserUnbanned, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import { banStates } from './ban-states.repository.js';

/**
 * Starts the durable `catalog--analytics-bans` consumer of identity's ban events (MOD-12's
 * banned-user count): it stores the latest ban state per user, the event's occurredAt deciding. A
 * separate table rather than a column of the shared user projection, so the projection
 * (packages/runtime) stays as it is.
 */
export async function startBanSync<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'analytics-bans', from: 'identity' })
    .on(UserBanned, (d, e, tx) => banStates.set(tx, d.userId, true, d.reason, e.occurredAt))
    .on(UserUnbanned, (d, e, tx) => banStates.set(tx, d.userId, false, null, e.occurredAt));
  await consumer.start();
  return consumer;
}

import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserDeleted, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';
import type { BadgeCounter } from '../notifications/badge.counter.js';
import { UserDeletionRepository } from './user-deletion.repository.js';

/**
 * ACC-5 in notification: removes every row of the deleted user (UserDeletionRepository), one
 * batch per transaction, then their badge counter in Redis. Their websocket sessions are closed
 * by the session-control feed (realtime.consumers.ts) on every replica. Runs outside one
 * transaction (onLongRunning): a restart mid-way redelivers the event and the loop resumes.
 * Others' badges that counted a removed notification heal within the badge's TTL (NOT-3).
 */
export async function startUserDeletion<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
  badge: Pick<BadgeCounter, 'forget'>;
}): Promise<DurableConsumer<Tx>> {
  const repo = new UserDeletionRepository();
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'notification', name: 'user-deletion', from: 'identity' }).onLongRunning(
    UserDeleted,
    async ({ userId }) => {
      await repo.removeAll(options.db, userId, options.logger);
      await options.badge.forget(userId);
    },
  );
  await consumer.start();
  return consumer;
}

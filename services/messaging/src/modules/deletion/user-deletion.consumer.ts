import type { Logger } from '@msp/runtime';
import {
  DurableConsumer,
  UserDeleted,
  UserDeletionCancelled,
  UserDeletionScheduled,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import { relationsRepository } from '../relations/relations.repository.js';
import { userDeletionRepository } from './user-deletion.repository.js';

/**
 * Account deletion in messaging, the durable `messaging--user-deletion` consumer of identity's
 * events (one consumer, stream order): ACC-3's scheduling hides the user's conversations from
 * others as a ban does (R14, `banned_users`), ACC-4's cancellation shows them again unless a ban
 * holds, and the deletion (ACC-5 or the end of the grace) runs USER_DELETION_STEPS one batch per
 * transaction (`removeInBatches`), outside the event's transaction (onLongRunning: a restart resumes it).
 */
export async function startUserDeletion<Tx extends SqlExecutor>(deps: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: Logger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...deps, service: 'messaging', name: 'user-deletion', from: 'identity' })
    .on(UserDeletionScheduled, (d, _e, tx) => relationsRepository.scheduleDeletion(tx, d.userId))
    .on(UserDeletionCancelled, (d, _e, tx) => relationsRepository.cancelDeletion(tx, d.userId))
    .onLongRunning(UserDeleted, ({ userId }) => userDeletionRepository.removeAll(deps.db, userId, deps.logger));
  await consumer.start();
  return consumer;
}

import type { FastifyBaseLogger } from 'fastify';
import {
  DurableConsumer,
  UserDeleted,
  UserDeletionCancelled,
  UserDeletionScheduled,
  type EventEnvelope,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import { BanCountsRepository, type Recounted } from '../users/ban-counts.repository.js';
import { publishRecounted } from '../users/user-bans.consumer.js';
import { UserBansRepository } from '../users/user-bans.repository.js';
import { ENGAGEMENT_TABLES, UserDeletionRepository } from './user-deletion.repository.js';

/**
 * ACC-5 in social: removes everything of a deleted user, one batch per transaction (each
 * recounts what it changed on others' content and users and publishes the values as
 * `social.counts.recounted.v1`, cause USER_DELETED, in the same transaction), in this order:
 * likes and reposts given, comments (with the replies under them), follows both ways, their own
 * tracks and playlists (catalog's copies, with others' likes, reposts and comments on them),
 * blocks both ways, reports filed by or about them, the published events naming them, then the
 * hiding row and the user copy.
 * Runs outside one transaction (DurableConsumer.onLongRunning): a restart mid-way redelivers the
 * event and the loop resumes with what is left, so it is idempotent and restart-safe.
 */
export async function deleteUserData<Tx extends SqlExecutor>(db: TransactionalClient<Tx>, userId: number, event: EventEnvelope<unknown>): Promise<void> {
  const repo = new UserDeletionRepository(db);
  const loop = async (step: (tx: Tx) => Promise<{ removed: number; recounted?: Recounted }>) => {
    for (;;) {
      const removed = await repo.transaction(async (tx) => {
        const result = await step(tx);
        if (result.recounted) await publishRecounted(tx, null, 'USER_DELETED', result.recounted, event);
        return result.removed;
      });
      if (removed === 0) return;
    }
  };
  for (const kind of ENGAGEMENT_TABLES) await loop((tx) => repo.engagementBatch(tx, userId, kind));
  await loop((tx) => repo.commentsBatch(tx, userId));
  await loop((tx) => repo.followsBatch(tx, userId));
  await loop(async (tx) => ({ removed: await repo.ownTracksBatch(tx, userId) }));
  await loop(async (tx) => ({ removed: await repo.ownPlaylistsBatch(tx, userId) }));
  await loop(async (tx) => ({ removed: await repo.blocksBatch(tx, userId) }));
  await loop(async (tx) => ({ removed: await repo.reportsBatch(tx, userId) }));
  await loop(async (tx) => ({ removed: await repo.publishedEventsBatch(tx, userId) }));
  await repo.transaction((tx) => repo.finish(tx, userId));
}

/**
 * Starts the durable `social--user-deletion` consumer of identity's deletion events:
 * UserDeletionScheduled hides the user exactly as a ban does (the `deletion_pending` reason on
 * their `banned_users` row, with the same recount), UserDeletionCancelled shows them again unless
 * a ban still holds, and UserDeleted removes their data (`deleteUserData`). One consumer, in
 * stream order, so a deletion always follows its scheduling.
 */
export async function startUserDeletion<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const bans = new UserBansRepository();
  const counts = new BanCountsRepository();
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'social', name: 'user-deletion', from: 'identity' })
    .on(UserDeletionScheduled, async (d, e, tx) => {
      if (await bans.hide(tx, d.userId, 'deletion_pending', null)) {
        await publishRecounted(tx, d.userId, 'USER_DELETION_SCHEDULED', await counts.recount(tx, d.userId), e);
      }
    })
    .on(UserDeletionCancelled, async (d, e, tx) => {
      if (await bans.unhide(tx, d.userId, 'deletion_pending')) {
        await publishRecounted(tx, d.userId, 'USER_DELETION_CANCELLED', await counts.recount(tx, d.userId), e);
      }
    })
    .onLongRunning(UserDeleted, (d, e) => deleteUserData(options.db, d.userId, e));
  await consumer.start();
  return consumer;
}

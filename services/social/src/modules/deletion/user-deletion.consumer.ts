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
import { removeInBatches, type Logger } from '@msp/runtime';
import type { Recounted } from '../users/ban-counts.repository.js';
import { publishRecounted } from '../users/user-bans.consumer.js';
import { UserBansRepository } from '../users/user-bans.repository.js';
import { ENGAGEMENT_TABLES, RECOUNT_KINDS, UserDeletionRepository } from './user-deletion.repository.js';

/**
 * ACC-5 in social: removes everything of a deleted user, one batch per transaction (each
 * recounts what it changed on others' content and users and publishes the values as
 * `social.counts.recounted.v1`, cause USER_DELETED, in the same transaction; while the user is
 * hidden, as after ACC-3, their rows count nowhere and only counters found to differ from their
 * rows are recounted: `UserDeletionRepository`), in this order:
 * likes and reposts given, comments (with the replies under them), follows both ways, others'
 * likes, reposts and comments on their own tracks and playlists, then those (catalog's copies),
 * blocks both ways, reports filed by or about them, the published events naming them, then the
 * hiding row and the user copy.
 * Each kind is removed by `removeInBatches` (packages/runtime), one short transaction per batch.
 * Runs outside one transaction (DurableConsumer.onLongRunning): a restart mid-way redelivers the
 * event and the loop resumes with what is left, so it is idempotent and restart-safe.
 */
export async function deleteUserData<Tx extends SqlExecutor>(
  db: TransactionalClient<Tx>,
  userId: number,
  event: EventEnvelope<unknown>,
  logger?: Pick<Logger, 'debug' | 'warn'>,
): Promise<void> {
  const repo = new UserDeletionRepository(db);
  const removal = (name: string) => ({ name: `social.${name}`, logger, context: { userId } });
  /** One batch per transaction, with the recounted values it published. */
  const batches = (name: string, step: (tx: Tx) => Promise<{ removed: number; recounted?: Recounted }>) =>
    removeInBatches(
      () =>
        repo.transaction(async (tx) => {
          const result = await step(tx);
          if (result.recounted) await publishRecounted(tx, null, 'USER_DELETED', result.recounted, event);
          return result.removed;
        }),
      removal(name),
    );
  for (const kind of ENGAGEMENT_TABLES) await batches(kind.table, (tx) => repo.engagementBatch(tx, userId, kind));
  await batches('comments', (tx) => repo.commentsBatch(tx, userId));
  await batches('follows', (tx) => repo.followsBatch(tx, userId));
  await batches('owned-engagement', async (tx) => ({ removed: await repo.ownedEngagementBatch(tx, userId) }));
  await batches('track_refs', async (tx) => ({ removed: await repo.ownTracksBatch(tx, userId) }));
  await batches('playlist_refs', async (tx) => ({ removed: await repo.ownPlaylistsBatch(tx, userId) }));
  await batches('blocks', async (tx) => ({ removed: await repo.blocksBatch(tx, userId) }));
  await batches('reports', async (tx) => ({ removed: await repo.reportsBatch(tx, userId) }));
  await removeInBatches<bigint>((after) => repo.transaction((tx) => repo.publishedEventsBatch(tx, userId, after)), removal('outbox_event'));
  await repo.transaction((tx) => repo.finish(tx, userId));
}

/**
 * Starts the durable `social--user-deletion` consumer of identity's deletion events:
 * UserDeletionScheduled hides the user exactly as a ban does (the `deletion_pending` reason on
 * their `banned_users` row, with the same recount), UserDeletionCancelled shows them again unless
 * a ban still holds, and UserDeleted removes their data (`deleteUserData`). One consumer, in
 * stream order, so a deletion always follows its scheduling.
 */
/**
 * ACC-3's hiding (`hidden`) or ACC-4's showing again, then the recount of every counter the
 * user's rows count in, one short transaction per batch of counters (`removeInBatches`), each
 * publishing its values (`social.counts.recounted.v1`, cause USER_DELETION_SCHEDULED or
 * USER_DELETION_CANCELLED): a user with 10,000 likes never holds 10,000 counter rows locked in one
 * transaction. The hiding commits first, so the increments of others' likes already leave the user
 * out meanwhile; a redelivery after a crash recounts again (a recount is idempotent).
 */
export async function changeHiding<Tx extends SqlExecutor>(
  db: TransactionalClient<Tx>,
  userId: number,
  hidden: boolean,
  event: EventEnvelope<unknown>,
  logger?: Pick<Logger, 'debug' | 'warn'>,
): Promise<void> {
  const repo = new UserDeletionRepository(db);
  const bans = new UserBansRepository();
  const recount = await repo.transaction(async (tx) => {
    if (hidden) await bans.hide(tx, userId, 'deletion_pending', null);
    else await bans.unhide(tx, userId, 'deletion_pending');
    return repo.countsFollowHiding(tx, userId, hidden);
  });
  if (!recount) return;
  const cause = hidden ? 'USER_DELETION_SCHEDULED' : 'USER_DELETION_CANCELLED';
  for (const kind of RECOUNT_KINDS) {
    await removeInBatches<number>(
      (after) =>
        repo.transaction(async (tx) => {
          const batch = await repo.hidingRecountBatch(tx, userId, kind, after);
          await publishRecounted(tx, userId, cause, batch.recounted, event);
          return batch;
        }),
      { name: `social.recount.${kind}`, logger, context: { userId } },
    );
  }
}

/**
 * Starts the durable `social--user-deletion` consumer of identity's deletion events:
 * UserDeletionScheduled hides the user exactly as a ban does (the `deletion_pending` reason on
 * their `banned_users` row, then the same recount, in batches: `changeHiding`),
 * UserDeletionCancelled shows them again unless a ban still holds, and UserDeleted removes their
 * data (`deleteUserData`). One consumer, in stream order, so a deletion always follows its
 * scheduling.
 */
export async function startUserDeletion<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'social', name: 'user-deletion', from: 'identity' })
    .onLongRunning(UserDeletionScheduled, (d, e) => changeHiding(options.db, d.userId, true, e, options.logger))
    .onLongRunning(UserDeletionCancelled, (d, e) => changeHiding(options.db, d.userId, false, e, options.logger))
    .onLongRunning(UserDeleted, (d, e) => deleteUserData(options.db, d.userId, e, options.logger));
  await consumer.start();
  return consumer;
}

import type { FastifyBaseLogger } from 'fastify';
import {
  DurableConsumer,
  UserBanned,
  UserBlocked,
  UserUnbanned,
  UserUnblocked,
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
 * Messaging's copy of social's blocks (R7): MSG-2 and MSG-4 consult it locally, so a block check
 * never depends on social answering. Events arrive in stream order (concurrency 1), so a block,
 * unblock and block again end as social left them.
 */
export async function startBlocksConsumer<Tx extends SqlExecutor>(deps: ConsumerDeps<Tx>): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...deps, service: 'messaging', name: 'blocks', from: 'social' })
    .on(UserBlocked, async (data, _e, tx) => {
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

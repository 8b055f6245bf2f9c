import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserBanned, UserUnbanned, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';

/**
 * R14 for discovery: catalog marks banned users in its user projection so search, trending and
 * stations leave their content out in SQL (before paging). A ban may arrive before the user's
 * registration event: the row is created as a placeholder that the registration then fills.
 */
async function setBanned(tx: SqlExecutor, userId: number, banned: boolean) {
  const updated = await tx.$executeRawUnsafe('UPDATE user_summaries SET is_banned = $2, updated_at = now() WHERE user_id = $1', userId, banned);
  if (updated === 0 && banned) {
    await tx.$executeRawUnsafe(
      `INSERT INTO user_summaries (user_id, username, display_name, is_banned, updated_at)
       VALUES ($1, '~pending-' || $1, '~pending-' || $1, true, now()) ON CONFLICT (user_id) DO UPDATE SET is_banned = true`,
      userId,
    );
  }
}

/** Starts the durable `catalog--user-bans` consumer of identity's ban events. */
export async function startUserBans<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'user-bans', from: 'identity' })
    .on(UserBanned, (d, _e, tx) => setBanned(tx, d.userId, true))
    .on(UserUnbanned, (d, _e, tx) => setBanned(tx, d.userId, false));
  await consumer.start();
  return consumer;
}

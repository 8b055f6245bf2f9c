import type { FastifyBaseLogger } from 'fastify';
import { DurableConsumer, UserBanned, UserUnbanned, type NatsConnection, type SqlExecutor, type TransactionalClient } from '@msp/events';

/**
 * Stores the latest ban state per user; the event's occurredAt decides, so a late redelivery of an
 * older ban/unban never overwrites a newer one.
 */
async function setBan(tx: SqlExecutor, userId: number, isBanned: boolean, reason: string | null, at: string): Promise<void> {
  await tx.$executeRawUnsafe(
    `INSERT INTO user_ban_states (user_id, is_banned, reason, changed_at) VALUES ($1, $2, $3, $4::timestamptz)
     ON CONFLICT (user_id) DO UPDATE SET is_banned = EXCLUDED.is_banned, reason = EXCLUDED.reason, changed_at = EXCLUDED.changed_at
      WHERE user_ban_states.changed_at <= EXCLUDED.changed_at`,
    userId,
    isBanned,
    reason,
    at,
  );
}

/**
 * Starts the durable `catalog--analytics-bans` consumer of identity's ban events (MOD-12's
 * banned-user count). A separate table rather than a column of the shared user projection, so the
 * projection (packages/runtime) stays as it is.
 */
export async function startBanSync<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'catalog', name: 'analytics-bans', from: 'identity' })
    .on(UserBanned, (d, e, tx) => setBan(tx, d.userId, true, d.reason, e.occurredAt))
    .on(UserUnbanned, (d, e, tx) => setBan(tx, d.userId, false, null, e.occurredAt));
  await consumer.start();
  return consumer;
}

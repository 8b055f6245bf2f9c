import { sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

/**
 * Writes of `user_ban_states` (the latest ban state per user, for MOD-12's banned-user count),
 * inside the ban consumer's transaction.
 */
export const banStates = {
  /** The event's occurredAt decides, so a late redelivery of an older ban/unban never overwrites a newer one. */
  async set(tx: SqlExecutor, userId: number, isBanned: boolean, reason: string | null, at: string): Promise<void> {
    await tx.$executeRaw(
      sql`INSERT INTO user_ban_states (user_id, is_banned, reason, changed_at) VALUES (${userId}, ${isBanned}, ${reason}, ${at}::timestamptz)
       ON CONFLICT (user_id) DO UPDATE SET is_banned = EXCLUDED.is_banned, reason = EXCLUDED.reason, changed_at = EXCLUDED.changed_at
        WHERE user_ban_states.changed_at <= EXCLUDED.changed_at`,
    );
  },

  async ban(tx: SqlExecutor, { userId, reason, occurredAt }: { userId: number; reason: string | null; occurredAt: string }): Promise<void> {
    await banStates.set(tx, userId, true, reason, occurredAt);
  },

  async unban(tx: SqlExecutor, { userId, occurredAt }: { userId: number; occurredAt: string }): Promise<void> {
    await banStates.set(tx, userId, false, null, occurredAt);
  },
};

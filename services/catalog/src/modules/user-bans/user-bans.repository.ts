import { sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

/** Writes of `user_summaries.is_banned` (R14), inside the user-bans consumer's transaction. */
export const userBans = {
  /**
   * Marks the user banned or not. A ban may arrive before the user's registration event: the row
   * is created as a placeholder that the registration then fills.
   */
  async set(tx: SqlExecutor, userId: number, banned: boolean): Promise<void> {
    const updated = await tx.$executeRaw(sql`UPDATE user_summaries SET is_banned = ${banned}, updated_at = now() WHERE user_id = ${userId}`);
    if (updated === 0 && banned) {
      await tx.$executeRaw(
        sql`INSERT INTO user_summaries (user_id, username, display_name, is_banned, updated_at)
         VALUES (${userId}, '~pending-' || ${userId}, '~pending-' || ${userId}, true, now()) ON CONFLICT (user_id) DO UPDATE SET is_banned = true`,
      );
    }
  },

  async ban(tx: SqlExecutor, { userId }: { userId: number }): Promise<void> {
    await userBans.set(tx, userId, true);
  },

  async unban(tx: SqlExecutor, { userId }: { userId: number }): Promise<void> {
    await userBans.set(tx, userId, false);
  },
};

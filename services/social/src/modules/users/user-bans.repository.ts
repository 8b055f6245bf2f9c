import { raw, sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

/** Why a user is hidden as for a ban: `is_banned` (R14) or `deletion_pending` (ACC-3). */
export type HideReason = 'is_banned' | 'deletion_pending';

/** The column of each reason (an identifier from this fixed map, never a caller's text). */
const HIDE_COLUMNS: Record<HideReason, string> = { is_banned: 'is_banned', deletion_pending: 'deletion_pending' };

/**
 * Social's copy of identity's bans (`banned_users`, R14). A row exists while the user is banned
 * or their account deletion is scheduled (ACC-3): every hiding check reads only that the row
 * exists, so both hide the same things. Each reason is set and cleared on its own; the methods
 * answer whether the row's existence (what others see) changed.
 */
export class UserBansRepository {
  /** True when the user was not hidden before. */
  async insert(tx: SqlExecutor, userId: number, at: string | null): Promise<boolean> {
    return this.hide(tx, userId, 'is_banned', at);
  }

  /** True when the user is no longer hidden. */
  async delete(tx: SqlExecutor, userId: number): Promise<boolean> {
    return this.unhide(tx, userId, 'is_banned');
  }

  /** Sets one reason; true when the row did not exist before (the user becomes hidden). */
  async hide(tx: SqlExecutor, userId: number, reason: HideReason, at: string | null): Promise<boolean> {
    const column = raw(HIDE_COLUMNS[reason]);
    const rows = await tx.$queryRaw<Array<{ inserted: boolean }>>(
      sql`INSERT INTO banned_users (user_id, banned_at, is_banned, deletion_pending)
          VALUES (${userId}, coalesce(${at}::timestamptz, now()), ${reason === 'is_banned'}, ${reason === 'deletion_pending'})
          ON CONFLICT (user_id) DO UPDATE SET ${column} = true
          RETURNING (xmax = 0) AS inserted`,
    );
    return rows[0]?.inserted === true;
  }

  /** Clears one reason; true when no reason is left and the row went (the user shows again). */
  async unhide(tx: SqlExecutor, userId: number, reason: HideReason): Promise<boolean> {
    const column = raw(HIDE_COLUMNS[reason]);
    await tx.$executeRaw(sql`UPDATE banned_users SET ${column} = false WHERE user_id = ${userId} AND ${column}`);
    return (await tx.$executeRaw(sql`DELETE FROM banned_users WHERE user_id = ${userId} AND NOT is_banned AND NOT deletion_pending`)) > 0;
  }
}

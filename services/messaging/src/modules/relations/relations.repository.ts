import { blocksCopyTable, followsCopyTable } from '@msp/runtime';
import { raw, sql, type SqlExecutor } from '@msp/db';

/**
 * Messaging's copies of social's follows and blocks and of identity's bans, written by the
 * consumers inside the transaction that also records the event as processed.
 */
/** Clears one reason a user is hidden; the row goes when none is left (a ban outlives a cancelled deletion). */
async function unhide(tx: SqlExecutor, userId: number, reason: 'is_banned' | 'deletion_pending'): Promise<void> {
  await tx.$executeRaw(sql`UPDATE banned_users SET ${raw(reason)} = false WHERE user_id = ${userId}`);
  await tx.$executeRaw(sql`DELETE FROM banned_users WHERE user_id = ${userId} AND NOT is_banned AND NOT deletion_pending`);
}

export const relationsRepository = {
  ...followsCopyTable('follows'),
  ...blocksCopyTable('blocks'),

  async ban(tx: SqlExecutor, { userId, bannedAt }: { userId: number; bannedAt: string }): Promise<void> {
    await tx.$executeRaw(
      sql`INSERT INTO banned_users (user_id, banned_at, is_banned) VALUES (${userId}, ${bannedAt}::timestamptz, true)
       ON CONFLICT (user_id) DO UPDATE SET banned_at = EXCLUDED.banned_at, is_banned = true`,
    );
  },

  async unban(tx: SqlExecutor, { userId }: { userId: number }): Promise<void> {
    await unhide(tx, userId, 'is_banned');
  },

  /** ACC-3: a user whose deletion is scheduled is hidden as a banned one, until ACC-4 or the deletion. */
  async scheduleDeletion(tx: SqlExecutor, userId: number): Promise<void> {
    await tx.$executeRaw(
      sql`INSERT INTO banned_users (user_id, banned_at, is_banned, deletion_pending) VALUES (${userId}, now(), false, true)
       ON CONFLICT (user_id) DO UPDATE SET deletion_pending = true`,
    );
  },

  async cancelDeletion(tx: SqlExecutor, userId: number): Promise<void> {
    await unhide(tx, userId, 'deletion_pending');
  },
};

import type { SqlExecutor } from '@msp/events';

/**
 * R14: social's copy of identity's bans in `banned_users`. The lists and checks of `user-sql.ts`
 * (`notBannedSql`) hide a banned user's comments, likes, reposts, follows, feed items and content
 * from everyone but admins; the unban deletes the row, so everything comes back. Idempotent both
 * ways (a redelivered event changes nothing).
 */
export async function setBanned(tx: SqlExecutor, userId: number, banned: boolean, at: string | null): Promise<void> {
  if (banned) {
    await tx.$executeRawUnsafe(
      'INSERT INTO banned_users (user_id, banned_at) VALUES ($1, coalesce($2::timestamptz, now())) ON CONFLICT (user_id) DO NOTHING',
      userId,
      at,
    );
  } else {
    await tx.$executeRawUnsafe('DELETE FROM banned_users WHERE user_id = $1', userId);
  }
}


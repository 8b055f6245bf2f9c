import type { SqlExecutor } from '@msp/events';

/** Social's copy of identity's bans (`banned_users`, R14). */
export class UserBansRepository {
  /** True when the user was not banned before. */
  async insert(tx: SqlExecutor, userId: number, at: string | null): Promise<boolean> {
    const inserted = await tx.$executeRawUnsafe(
      'INSERT INTO banned_users (user_id, banned_at) VALUES ($1, coalesce($2::timestamptz, now())) ON CONFLICT (user_id) DO NOTHING',
      userId,
      at,
    );
    return inserted > 0;
  }

  /** True when the user was banned before. */
  async delete(tx: SqlExecutor, userId: number): Promise<boolean> {
    return (await tx.$executeRawUnsafe('DELETE FROM banned_users WHERE user_id = $1', userId)) > 0;
  }
}

import type { Sql } from '@msp/db';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { ownerHiddenSql } from '../discovery/discovery-sql.js';

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * R2, R6, R14: whose content is hidden from everyone but admins — users deleted in identity, and
 * banned users (`user_summaries.is_banned`, kept by the user-bans consumer; unban flips it back, so
 * their content returns). One definition for the Prisma reads below and for the SQL of
 * `ownerHiddenSql` (discovery, history, playlists' track lists).
 */
export const HIDDEN_OWNER = { OR: [{ isDeleted: true }, { isBanned: true }] } satisfies Prisma.UserSummaryWhereInput;

/** `ownerHiddenSql` as an `Sql` fragment for tagged-template queries (`ownerId` is a column name, the text holds no value). */
export function ownerHiddenFragment(ownerId: string): Sql {
  return ownerHiddenSql(ownerId);
}

/** Of `userIds`, those whose content is hidden (deleted or banned): one query. */
export async function hiddenOwnerIds(db: Db, userIds: readonly number[]): Promise<Set<number>> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return new Set();
  const rows = await db.userSummary.findMany({ where: { userId: { in: ids }, ...HIDDEN_OWNER }, select: { userId: true } });
  return new Set(rows.map((r) => r.userId));
}

/** Whether one owner's content is hidden (deleted or banned). */
export async function isOwnerHidden(db: Db, userId: number): Promise<boolean> {
  return (await hiddenOwnerIds(db, [userId])).has(userId);
}

/** Whether the user is banned (R14): for the secret-token paths (R5), where a deleted owner was never checked. */
export async function isBanned(db: Db, userId: number): Promise<boolean> {
  const row = await db.userSummary.findUnique({ where: { userId }, select: { isBanned: true } });
  return row?.isBanned ?? false;
}

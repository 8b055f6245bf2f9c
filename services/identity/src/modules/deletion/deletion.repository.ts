import { UserDeleted, UserDeletionCancelled, UserDeletionScheduled, writeOutbox } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { cancelRunningExports } from '../exports/exports.repository.js';

export interface DeletionTarget {
  id: number;
  role: string;
  passwordHash: string | null;
  isBanned: boolean;
  suspendedUntil: Date | null;
  deleteAt: Date | null;
}

/** What the removal of an account leaves for the caller to finish outside the transaction. */
export interface RemovedAccount {
  userId: number;
  /** Grants of other users to the account's own apps: their access tokens must stop at once. */
  foreignGrantIds: string[];
}

/**
 * Account deletion (ACC-3…ACC-5, docs/account-control.md): the pending state on `users.delete_at`
 * with its events, and the removal of every row identity keeps of the account.
 */
export class DeletionRepository {
  constructor(private readonly prisma: PrismaClient) {}

  target(userId: number): Promise<DeletionTarget | null> {
    return this.prisma.user.findUnique({
      where: { id: userId },
      select: { id: true, role: true, passwordHash: true, isBanned: true, suspendedUntil: true, deleteAt: true },
    });
  }

  /**
   * ACC-3 / ACC-5, one transaction: the deletion date, every session and app grant of the account
   * ended, and UserDeletionScheduled. A second request keeps the earlier (sooner) date, except that
   * an admin deletion (`deleteAt` now) always brings it forward.
   */
  async schedule(userId: number, deleteAt: Date, now: Date, correlationId: string): Promise<Date> {
    return this.prisma.$transaction(async (tx) => {
      const current = await tx.user.findUnique({ where: { id: userId }, select: { deleteAt: true } });
      const effective = current?.deleteAt && current.deleteAt <= deleteAt ? current.deleteAt : deleteAt;
      await tx.user.update({ where: { id: userId }, data: { deleteAt: effective }, select: { id: true } });
      await tx.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now, revokeReason: 'account-deleted' } });
      await tx.oAuthGrant.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now, revokeReason: 'account-deleted' } });
      // A deleted account gets no export: the one being built stops, a ready one expires.
      await cancelRunningExports(tx, userId);
      if (!current?.deleteAt || effective.getTime() !== current.deleteAt.getTime()) {
        await writeOutbox(tx, UserDeletionScheduled, { userId, deleteAt: effective.toISOString() }, { correlationId });
      }
      return effective;
    });
  }

  /** ACC-4: clears a pending deletion still inside its grace; false when there was none. */
  async cancel(userId: number, now: Date, correlationId: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.user.updateMany({ where: { id: userId, deleteAt: { gt: now } }, data: { deleteAt: null } });
      if (count === 0) return false;
      await writeOutbox(tx, UserDeletionCancelled, { userId }, { correlationId });
      return true;
    });
  }

  /** Ids of the account's exports (their objects live under `exports/{id}/`). */
  async exportIdsOf(userId: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>`SELECT id::text AS id FROM account_exports WHERE user_id = ${userId}`;
    return rows.map((r) => r.id);
  }

  /** Accounts whose grace has passed, soonest first. */
  async due(now: Date, limit: number): Promise<number[]> {
    const rows = await this.prisma.user.findMany({ where: { deleteAt: { lte: now } }, orderBy: { deleteAt: 'asc' }, take: limit, select: { id: true } });
    return rows.map((r) => r.id);
  }

  /** Age in seconds of the oldest account whose grace has passed (the worker's lag). */
  async oldestDueAgeSeconds(now: Date): Promise<number> {
    const row = await this.prisma.user.findFirst({ where: { deleteAt: { lte: now } }, orderBy: { deleteAt: 'asc' }, select: { deleteAt: true } });
    return row?.deleteAt ? Math.max(0, (now.getTime() - row.deleteAt.getTime()) / 1000) : 0;
  }

  /**
   * Removes every row of the account in one transaction (an account has few rows here: its
   * sessions, addresses, factors, apps) and publishes UserDeleted with it. The account row is
   * locked first (SKIP LOCKED): another replica removing the same account skips it; one whose
   * grace has not passed (restored meanwhile) is left alone. Null when nothing was removed.
   */
  async remove(userId: number, now: Date, correlationId: string): Promise<RemovedAccount | null> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<Array<{ id: number }>>`
        SELECT id FROM users WHERE id = ${userId} AND delete_at <= ${now} FOR UPDATE SKIP LOCKED`;
      if (locked.length === 0) return null;
      const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, emails: { select: { email: true } } } });
      const addresses = [...new Set([user.email, ...user.emails.map((e) => e.email)])];
      const ownApps = await tx.oAuthApp.findMany({ where: { ownerId: userId }, select: { id: true } });
      const appIds = ownApps.map((a) => a.id);
      const foreignGrants = appIds.length
        ? await tx.oAuthGrant.findMany({ where: { appId: { in: appIds }, userId: { not: userId }, revokedAt: null }, select: { id: true } })
        : [];
      // Codes and refresh tokens of grants, addresses, sessions, refresh tokens, known devices,
      // factors and passkeys go with their parent rows (ON DELETE CASCADE).
      await tx.$executeRaw`DELETE FROM account_exports WHERE user_id = ${userId}`;
      await tx.oAuthGrant.deleteMany({ where: { userId } });
      if (appIds.length) await tx.oAuthApp.deleteMany({ where: { id: { in: appIds } } });
      await tx.oneTimeToken.deleteMany({ where: { OR: [{ userId }, { email: { in: addresses } }] } });
      await tx.mailOutbox.deleteMany({ where: { recipient: { in: addresses } } });
      await tx.mailRequest.deleteMany({ where: { email: { in: addresses } } });
      await tx.user.delete({ where: { id: userId }, select: { id: true } });
      // Published events about the account (its snapshot carries the username): already delivered.
      await tx.$executeRaw`DELETE FROM outbox_event WHERE published_at IS NOT NULL AND (payload->'data'->>'userId') = ${String(userId)}`;
      await writeOutbox(tx, UserDeleted, { userId }, { correlationId });
      return { userId, foreignGrantIds: foreignGrants.map((g) => g.id) };
    });
  }
}

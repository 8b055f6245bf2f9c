import { sql } from '@msp/db';
import { UserDeleted, UserDeletionCancelled, UserDeletionScheduled, writeOutbox } from '@msp/events';
import { removeInBatches, type Logger, type RemovalSummary } from '@msp/runtime';
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

/** Outbox rows one statement of the pass over the published events looks at (by `seq`, in order). */
export const OUTBOX_SCAN = 2000;

/**
 * How far before the pass's start the removal's transaction looks again for published events
 * naming the account (by `published_at`): an event the pass saw unpublished (or not yet
 * committed) is published after the pass started, unless a relay transaction that began before
 * it was still open; none stays open this long.
 */
const PUBLISHED_SINCE_MARGIN = sql`interval '5 minutes'`;

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
   * The published events naming the account (their snapshots carry the username), found in one
   * pass over the outbox in commit order (`removeInBatches`, a keyset on `seq`, OUTBOX_SCAN rows a
   * statement, each statement on its own), before the removal's transaction: the transaction then
   * looks only at the events published since the pass began (`remove`'s `publishedSince`), not at
   * the whole table. Answers the database time the pass began and what it removed.
   */
  async removePublishedEvents(userId: number, logger?: Pick<Logger, 'debug' | 'warn'>): Promise<{ startedAt: Date; summary: RemovalSummary }> {
    const [{ now: startedAt } = { now: new Date() }] = await this.prisma.$queryRaw<Array<{ now: Date }>>`SELECT now() AS now`;
    const summary = await removeInBatches<bigint>((after) => this.publishedEventsBatch(userId, after), {
      name: 'identity.outbox_event',
      logger,
      context: { userId },
    });
    return { startedAt, summary };
  }

  /**
   * Published events naming the account among the OUTBOX_SCAN outbox rows after `afterSeq`:
   * the rows removed and the last `seq` looked at (null once the end is reached). Unpublished
   * events are the relay's (identity keeps those, docs/account-control.md).
   */
  async publishedEventsBatch(userId: number, afterSeq: bigint | undefined): Promise<{ removed: number; next: bigint | null }> {
    const [row] = await this.prisma.$queryRaw<Array<{ scanned: number; last: bigint | null; removed: number }>>`
      WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > ${afterSeq ?? 0n} ORDER BY seq LIMIT ${OUTBOX_SCAN}),
           d AS (DELETE FROM outbox_event o USING s
                  WHERE o.seq = s.seq AND s.published_at IS NOT NULL AND (s.payload->'data'->>'userId') = ${String(userId)}
                 RETURNING 1)
      SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`;
    return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
  }

  /**
   * Removes every row of the account in one transaction (an account has few rows here: its
   * sessions, addresses, factors, apps) and publishes UserDeleted with it. The account row is
   * locked first (SKIP LOCKED): another replica removing the same account skips it; one whose
   * grace has not passed (restored meanwhile) is left alone. Null when nothing was removed.
   * The published events naming the account: those published since `publishedSince` (the start
   * of `removePublishedEvents`' pass, which removed the earlier ones); without it, all of them.
   */
  async remove(userId: number, now: Date, correlationId: string, publishedSince?: Date): Promise<RemovedAccount | null> {
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
      // Those published before the pass began are gone with it; the rest by `published_at` (indexed).
      if (publishedSince) {
        await tx.$executeRaw(
          sql`DELETE FROM outbox_event WHERE published_at >= ${publishedSince}::timestamptz - ${PUBLISHED_SINCE_MARGIN} AND (payload->'data'->>'userId') = ${String(userId)}`,
        );
      } else {
        await tx.$executeRaw`DELETE FROM outbox_event WHERE published_at IS NOT NULL AND (payload->'data'->>'userId') = ${String(userId)}`;
      }
      await writeOutbox(tx, UserDeleted, { userId }, { correlationId });
      return { userId, foreignGrantIds: foreignGrants.map((g) => g.id) };
    });
  }
}

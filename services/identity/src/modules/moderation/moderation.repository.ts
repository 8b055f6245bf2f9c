import { UserBanned, UserSuspended, UserUnbanned, writeOutbox } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';

export interface AdminAccount {
  email: string;
  username: string;
  displayName: string;
  passwordHash: string;
}

export interface ModerationTarget {
  id: number;
  role: string;
  isBanned: boolean;
  suspendedUntil: Date | null;
  deleteAt: Date | null;
}

const bannedListSelect = {
  id: true,
  username: true,
  displayName: true,
  avatarKey: true,
  tier: true,
  followerCount: true,
  trackCount: true,
  isBanned: true,
  banReason: true,
  bannedAt: true,
  suspendedUntil: true,
} as const;

/** What ModerationService needs of this repository (unit tests give fakes). */
export type ModerationStore = Pick<
  ModerationRepository,
  'roleByEmail' | 'updateAdmin' | 'createAdmin' | 'target' | 'setBan' | 'setSuspension' | 'lockedPage' | 'lockedUsers' | 'sessionsRevokedSince'
>;

/** Account locks (R14) with their events, admin accounts from configuration (R13), and what the Redis re-sync reads. */
export class ModerationRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The role of the account holding the address, or null when none does. */
  async roleByEmail(email: string): Promise<{ id: number; role: string } | null> {
    const row = await this.prisma.userEmail.findUnique({ where: { email }, select: { user: { select: { id: true, role: true } } } });
    return row?.user ?? null;
  }

  async updateAdmin(userId: number, passwordHash: string, displayName: string): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { passwordHash, displayName }, select: { id: true } });
  }

  async createAdmin(admin: AdminAccount): Promise<void> {
    await this.prisma.user.create({
      data: {
        email: admin.email,
        username: admin.username,
        displayName: admin.displayName,
        passwordHash: admin.passwordHash,
        role: 'ADMIN',
        emailVerified: true,
        emails: { create: { email: admin.email, isVerified: true, verifiedAt: new Date() } },
      },
      select: { id: true },
    });
  }

  target(userId: number): Promise<ModerationTarget | null> {
    return this.prisma.user.findUnique({ where: { id: userId }, select: { id: true, role: true, isBanned: true, suspendedUntil: true, deleteAt: true } });
  }

  /** MOD-8: the ban flag and, when it changed (`announce`), UserBanned / UserUnbanned, in one transaction. */
  async setBan(userId: number, ban: { isBanned: boolean; reason: string | null; at: Date }, announce: boolean, correlationId: string): Promise<void> {
    const { isBanned, reason, at } = ban;
    await this.prisma.$transaction(async (tx) => {
      if (isBanned) {
        await tx.user.update({ where: { id: userId }, data: { isBanned: true, banReason: reason, bannedAt: at, moderatedAt: at }, select: { id: true } });
        if (announce) await writeOutbox(tx, UserBanned, { userId, reason, bannedAt: at.toISOString() }, { correlationId });
      } else {
        await tx.user.update({ where: { id: userId }, data: { isBanned: false, banReason: null, bannedAt: null }, select: { id: true } });
        if (announce) await writeOutbox(tx, UserUnbanned, { userId }, { correlationId });
      }
    });
  }

  /** MOD-9: the suspension (null lifts it) and UserSuspended, in one transaction. */
  async setSuspension(userId: number, until: Date | null, reason: string | null, at: Date, correlationId: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.user.update({
        where: { id: userId },
        data: until ? { suspendedUntil: until, suspendReason: reason, moderatedAt: at } : { suspendedUntil: null, suspendReason: null },
        select: { id: true },
      });
      await writeOutbox(tx, UserSuspended, { userId, suspendedUntil: until?.toISOString() ?? null }, { correlationId });
    });
  }

  /** MOD-10: banned or currently suspended users, latest moderation first, and their total. */
  async lockedPage(now: Date, page: number, size: number) {
    const where = { OR: [{ isBanned: true }, { suspendedUntil: { gt: now } }] };
    const [rows, total] = await Promise.all([
      this.prisma.user.findMany({ where, orderBy: [{ moderatedAt: 'desc' }, { id: 'desc' }], skip: page * size, take: size, select: bannedListSelect }),
      this.prisma.user.count({ where }),
    ]);
    return { rows, total };
  }

  /** Banned, suspended and pending-deletion (ACC-3) accounts: the locks the Redis re-sync writes. */
  lockedUsers(now: Date): Promise<Array<{ id: number; isBanned: boolean; suspendedUntil: Date | null; deleteAt: Date | null }>> {
    return this.prisma.user.findMany({
      where: { OR: [{ isBanned: true }, { suspendedUntil: { gt: now } }, { deleteAt: { not: null } }] },
      select: { id: true, isBanned: true, suspendedUntil: true, deleteAt: true },
    });
  }

  sessionsRevokedSince(since: Date): Promise<Array<{ id: string; userId: number }>> {
    return this.prisma.session.findMany({ where: { revokedAt: { gt: since } }, select: { id: true, userId: true } });
  }
}

import type { PrismaClient } from '../../generated/prisma/client.js';
import { accountsRepository as accounts, type TokenUser } from '../accounts/accounts.repository.js';
import { hashSecret } from './secrets.js';

export interface NewSession {
  id: string;
  userId: number;
  deviceType: string;
  fingerPrint: string;
  deviceName: string;
  ipAddress: string;
  refreshable: boolean;
}

export interface StoredRefreshToken {
  id: number;
  sessionId: string;
  expiresAt: Date;
  rotatedAt: Date | null;
  session: { userId: number; revokedAt: Date | null };
}

/** Which sessions a revocation addresses: one, all of a user, all of a user but one. */
export type SessionSelector = { id: string } | { userId: number; exceptId?: string | null };

/** What SessionsService needs of this repository (unit tests give fakes). */
export type SessionsStore = Pick<
  SessionsRepository,
  | 'findTokenUser'
  | 'create'
  | 'findRefreshToken'
  | 'rotate'
  | 'replaceFamily'
  | 'findSession'
  | 'sessionOfRefreshToken'
  | 'revoke'
  | 'revokeAllOfUser'
  | 'revokedSince'
>;

/**
 * Sessions and their refresh-token families (docs/api.md "Conventions", R13). Refresh tokens are stored as their hash
 * only; a rotation is a conditional update, so of two concurrent uses only one wins.
 */
export class SessionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findTokenUser(userId: number): Promise<TokenUser | null> {
    return accounts.findTokenUser(this.prisma, userId);
  }

  /** AUTH-1: the account holding the address (any of its addresses) and whether that one is verified. */
  findAccountByEmail(email: string) {
    return accounts.findByEmail(this.prisma, email);
  }

  /** A hash made with older argon2 parameters, replaced after a successful login. */
  async upgradePasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { passwordHash }, select: { id: true } });
  }

  /** A new session, with the first refresh token of its family when `refresh` is given. */
  async create(session: NewSession, refresh: { token: string; expiresAt: Date } | null): Promise<void> {
    await this.prisma.session.create({
      data: {
        ...session,
        ...(refresh ? { refreshTokens: { create: { tokenHash: hashSecret(refresh.token), expiresAt: refresh.expiresAt } } } : {}),
      },
      select: { id: true },
    });
  }

  findRefreshToken(token: string): Promise<StoredRefreshToken | null> {
    return this.prisma.refreshToken.findUnique({
      where: { tokenHash: hashSecret(token) },
      select: { id: true, sessionId: true, expiresAt: true, rotatedAt: true, session: { select: { userId: true, revokedAt: true } } },
    });
  }

  /** Replaces refresh token `id` by `next`; false when another use rotated it first (a reuse). */
  rotate(current: { id: number; sessionId: string }, next: { token: string; expiresAt: Date }, now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const won = await tx.refreshToken.updateMany({ where: { id: current.id, rotatedAt: null }, data: { rotatedAt: now } });
      if (won.count === 0) return false;
      await tx.refreshToken.create({
        data: { sessionId: current.sessionId, tokenHash: hashSecret(next.token), expiresAt: next.expiresAt },
        select: { id: true },
      });
      await tx.session.update({ where: { id: current.sessionId }, data: { lastUsedAt: now }, select: { id: true } });
      return true;
    });
  }

  /** Retires every live refresh token of the session and starts its family again with `next`. */
  async replaceFamily(sessionId: string, next: { token: string; expiresAt: Date }, now: Date): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.refreshToken.updateMany({ where: { sessionId, rotatedAt: null }, data: { rotatedAt: now } });
      await tx.refreshToken.create({ data: { sessionId, tokenHash: hashSecret(next.token), expiresAt: next.expiresAt }, select: { id: true } });
    });
  }

  findSession(id: string): Promise<{ id: string; userId: number; revokedAt: Date | null; refreshable: boolean } | null> {
    return this.prisma.session.findUnique({ where: { id }, select: { id: true, userId: true, revokedAt: true, refreshable: true } });
  }

  async sessionOfRefreshToken(token: string): Promise<string | null> {
    const row = await this.prisma.refreshToken.findUnique({ where: { tokenHash: hashSecret(token) }, select: { sessionId: true } });
    return row?.sessionId ?? null;
  }

  /** Marks the open sessions the selector addresses revoked; their ids. */
  revoke(selector: SessionSelector, reason: string, now: Date): Promise<string[]> {
    const where = 'id' in selector ? { id: selector.id } : { userId: selector.userId, ...(selector.exceptId ? { id: { not: selector.exceptId } } : {}) };
    return this.prisma.$transaction(async (tx) => {
      const open = await tx.session.findMany({ where: { ...where, revokedAt: null }, select: { id: true } });
      if (open.length === 0) return [];
      const sessionIds = open.map((s) => s.id);
      await tx.session.updateMany({ where: { id: { in: sessionIds }, revokedAt: null }, data: { revokedAt: now, revokeReason: reason } });
      return sessionIds;
    });
  }

  async revokeAllOfUser(userId: number, reason: string, now: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now, revokeReason: reason } });
  }

  async revokedSince(userId: number, since: Date): Promise<string[]> {
    const rows = await this.prisma.session.findMany({ where: { userId, revokedAt: { gt: since } }, select: { id: true } });
    return rows.map((s) => s.id);
  }
}

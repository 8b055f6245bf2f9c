import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { hashSecret, randomSecret } from '../sessions/secrets.js';

type Db = PrismaClient | Prisma.TransactionClient;

export type TokenPurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'CHANGE_EMAIL' | 'ADD_EMAIL';

export const TOKEN_LIFETIME_MS: Record<TokenPurpose, number> = {
  VERIFY_EMAIL: 24 * 3600_000,
  RESET_PASSWORD: 30 * 60_000,
  CHANGE_EMAIL: 30 * 60_000,
  ADD_EMAIL: 30 * 60_000,
};

/** Purposes that replace each other: a new e-mail change request voids a pending add and vice versa. */
const REPLACES: Record<TokenPurpose, TokenPurpose[]> = {
  VERIFY_EMAIL: ['VERIFY_EMAIL'],
  RESET_PASSWORD: ['RESET_PASSWORD'],
  CHANGE_EMAIL: ['CHANGE_EMAIL', 'ADD_EMAIL'],
  ADD_EMAIL: ['CHANGE_EMAIL', 'ADD_EMAIL'],
};

/**
 * One-time tokens of R13: only the SHA-256 of the token is stored; a new request replaces the
 * pending one; `consume` marks it used in the same statement that checks it, so it works once.
 */
export const oneTimeTokens = {
  async issue(db: Db, userId: number, purpose: TokenPurpose, email: string): Promise<string> {
    const token = randomSecret();
    await db.oneTimeToken.updateMany({
      where: { userId, purpose: { in: REPLACES[purpose] }, usedAt: null },
      data: { usedAt: new Date(), expiresAt: new Date() },
    });
    await db.oneTimeToken.create({
      data: { userId, purpose, email, tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS[purpose]) },
      select: { id: true },
    });
    return token;
  },

  /**
   * `issue`, unless `perHour` tokens of this purpose were issued to the user within the last hour
   * (then null: nothing is written). The user's row is locked first, so workers of several
   * replicas count one after the other and the cap holds.
   */
  async issueCapped(tx: Prisma.TransactionClient, userId: number, purpose: TokenPurpose, email: string, perHour: number): Promise<string | null> {
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
    const recent = await tx.oneTimeToken.count({ where: { userId, purpose, createdAt: { gt: new Date(Date.now() - 3600_000) } } });
    if (recent >= perHour) return null;
    return oneTimeTokens.issue(tx, userId, purpose, email);
  },

  /** The live token's row, marked used; null when unknown, expired, used or of another purpose. */
  async consume(db: Db, token: string, purposes: TokenPurpose[]) {
    const row = await db.oneTimeToken.findUnique({
      where: { tokenHash: hashSecret(token) },
      select: { id: true, userId: true, purpose: true, email: true, expiresAt: true, usedAt: true },
    });
    if (!row || !purposes.includes(row.purpose as TokenPurpose)) return null;
    const now = new Date();
    if (row.usedAt || row.expiresAt <= now) return { ...row, live: false as const };
    const won = await db.oneTimeToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: now } });
    if (won.count === 0) return { ...row, live: false as const };
    return { ...row, purpose: row.purpose as TokenPurpose, live: true as const };
  },
};

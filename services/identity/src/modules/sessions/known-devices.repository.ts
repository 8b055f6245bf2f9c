import type { PrismaClient } from '../../generated/prisma/client.js';
import { hashSecret, randomSecret } from './secrets.js';

export const KNOWN_DEVICE_COOKIE = 'knownDevice';
/** How long a device stays known without logging in again. */
export const KNOWN_DEVICE_TTL_SECONDS = 180 * 24 * 3600;
/** Newest devices kept per account (clients without a cookie jar would otherwise add one per login). */
const DEVICES_PER_ACCOUNT = 20;

export interface KnownDevice {
  id: number;
  userId: number;
}

/**
 * Devices that logged in to an account before (or completed its password reset). The device
 * holds a 256-bit random token in an HttpOnly cookie; only its SHA-256 is stored. A known device
 * passes the failed-login limits of its account and address (LoginThrottle), which is what keeps
 * the owner able to log in while someone else hammers the account (OWASP device cookies).
 */
export class KnownDevices {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The live device holding `token`, whatever account it belongs to: the caller compares the
   * account, so the lookup costs the same whether or not the tried address has one.
   */
  async find(token: string | null | undefined): Promise<KnownDevice | null> {
    if (!token || token.length > 100) return null;
    const row = await this.prisma.knownDevice.findUnique({ where: { tokenHash: hashSecret(token) }, select: { id: true, userId: true, expiresAt: true } });
    if (!row || row.expiresAt <= new Date()) return null;
    return { id: row.id, userId: row.userId };
  }

  /**
   * After a successful login or password reset: the presented device when it is already this
   * account's (its life extended; no new token), else a new device. Returns the token to set in
   * the cookie, or null to keep the current one.
   */
  async remember(userId: number, presented: KnownDevice | null): Promise<string | null> {
    const expiresAt = new Date(Date.now() + KNOWN_DEVICE_TTL_SECONDS * 1000);
    if (presented && presented.userId === userId) {
      await this.prisma.knownDevice.update({ where: { id: presented.id }, data: { lastUsedAt: new Date(), expiresAt }, select: { id: true } });
      return null;
    }
    const token = randomSecret();
    await this.prisma.knownDevice.create({ data: { userId, tokenHash: hashSecret(token), expiresAt }, select: { id: true } });
    const keep = await this.prisma.knownDevice.findMany({
      where: { userId },
      orderBy: [{ lastUsedAt: 'desc' }, { id: 'desc' }],
      take: DEVICES_PER_ACCOUNT,
      select: { id: true },
    });
    await this.prisma.knownDevice.deleteMany({ where: { userId, OR: [{ id: { notIn: keep.map((d) => d.id) } }, { expiresAt: { lte: new Date() } }] } });
    return token;
  }

  /** A password reset that logs out everywhere also forgets every device of the account. */
  async forgetAll(userId: number): Promise<void> {
    await this.prisma.knownDevice.deleteMany({ where: { userId } });
  }
}

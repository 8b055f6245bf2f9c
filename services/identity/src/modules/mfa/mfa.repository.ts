import type { PrismaClient } from '../../generated/prisma/client.js';
import { accountsRepository, type TokenUser } from '../accounts/accounts.repository.js';
import { hashSecret } from '../sessions/secrets.js';

export interface TotpFactorRow {
  secret: string;
  confirmedAt: Date | null;
  lastCounter: bigint | null;
}

/** What MfaService needs of this repository (unit tests give fakes). */
export type MfaStore = Pick<
  MfaRepository,
  | 'findTokenUser'
  | 'factor'
  | 'startEnrolment'
  | 'acceptStep'
  | 'saveRecoveryCodes'
  | 'useRecoveryCode'
  | 'removeFactor'
  | 'recoveryCodesLeft'
  | 'deviceVerifiedAt'
  | 'markDeviceVerified'
>;

/** TOTP factors, recovery codes and the two-factor mark of known devices (docs/account-security.md). */
export class MfaRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findTokenUser(userId: number): Promise<TokenUser | null> {
    return accountsRepository.findTokenUser(this.prisma, userId);
  }

  factor(userId: number): Promise<TotpFactorRow | null> {
    return this.prisma.totpFactor.findUnique({ where: { userId }, select: { secret: true, confirmedAt: true, lastCounter: true } });
  }

  /** MFA-1: a new pending secret (replacing a pending one); false when a confirmed factor exists. */
  async startEnrolment(userId: number, encryptedSecret: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const current = await tx.totpFactor.findUnique({ where: { userId }, select: { confirmedAt: true } });
      if (current?.confirmedAt) return false;
      await tx.totpFactor.upsert({
        where: { userId },
        create: { userId, secret: encryptedSecret },
        update: { secret: encryptedSecret, lastCounter: null, createdAt: new Date() },
        select: { userId: true },
      });
      return true;
    });
  }

  /**
   * Records `step` as the last accepted time step, unless it is not newer than the last one (a
   * replayed code): a conditional update, so of two concurrent uses of one code only one wins.
   */
  async acceptStep(userId: number, step: bigint, confirm: boolean): Promise<boolean> {
    const now = new Date();
    const won = await this.prisma.totpFactor.updateMany({
      where: { userId, OR: [{ lastCounter: null }, { lastCounter: { lt: step } }], ...(confirm ? { confirmedAt: null } : { confirmedAt: { not: null } }) },
      data: { lastCounter: step, ...(confirm ? { confirmedAt: now } : {}) },
    });
    return won.count === 1;
  }

  /**
   * MFA-2 after the first code: the recovery codes replace any earlier ones, and devices that
   * skipped a second step before must pass it once.
   */
  async saveRecoveryCodes(userId: number, codeHashes: string[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.recoveryCode.deleteMany({ where: { userId } }),
      this.prisma.recoveryCode.createMany({ data: codeHashes.map((codeHash) => ({ userId, codeHash })) }),
      this.prisma.knownDevice.updateMany({ where: { userId }, data: { mfaVerifiedAt: null } }),
    ]);
  }

  /** Marks an unused recovery code used; false when unknown or already used. */
  async useRecoveryCode(userId: number, codeHash: string): Promise<boolean> {
    const used = await this.prisma.recoveryCode.updateMany({ where: { userId, codeHash, usedAt: null }, data: { usedAt: new Date() } });
    return used.count === 1;
  }

  /** MFA-3: the factor, its recovery codes and the devices' two-factor marks go. */
  async removeFactor(userId: number): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.totpFactor.deleteMany({ where: { userId } }),
      this.prisma.recoveryCode.deleteMany({ where: { userId } }),
      this.prisma.knownDevice.updateMany({ where: { userId }, data: { mfaVerifiedAt: null } }),
    ]);
  }

  recoveryCodesLeft(userId: number): Promise<number> {
    return this.prisma.recoveryCode.count({ where: { userId, usedAt: null } });
  }

  /** When the device last completed a second step for this account (null: never or not its device). */
  async deviceVerifiedAt(deviceId: number, userId: number): Promise<Date | null> {
    const row = await this.prisma.knownDevice.findUnique({ where: { id: deviceId }, select: { userId: true, mfaVerifiedAt: true, expiresAt: true } });
    if (!row || row.userId !== userId || row.expiresAt <= new Date()) return null;
    return row.mfaVerifiedAt;
  }

  /** After a completed second step: the device (by id, or by the token just issued) skips the next ones. */
  async markDeviceVerified(device: { id: number } | { token: string }): Promise<void> {
    const where = 'id' in device ? { id: device.id } : { tokenHash: hashSecret(device.token) };
    await this.prisma.knownDevice.updateMany({ where, data: { mfaVerifiedAt: new Date() } });
  }
}

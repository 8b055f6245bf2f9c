import type { PrismaClient } from '../../generated/prisma/client.js';
import { accountsRepository as accounts, type TokenUser } from '../accounts/accounts.repository.js';

/** Accounts as the identity-provider login sees them: by provider subject, by address, linking. */
/** What OAuthService needs of this repository (unit tests give fakes). */
export type OAuthStore = Pick<OAuthRepository, 'userIdBySubject' | 'findTokenUser' | 'findAccountByEmail' | 'linkSubject' | 'markAddressVerified'>;

export class OAuthRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async userIdBySubject(googleSub: string): Promise<number | null> {
    const row = await this.prisma.user.findUnique({ where: { googleSub }, select: { id: true } });
    return row?.id ?? null;
  }

  findTokenUser(userId: number): Promise<TokenUser | null> {
    return accounts.findTokenUser(this.prisma, userId);
  }

  findAccountByEmail(email: string) {
    return accounts.findByEmail(this.prisma, email);
  }

  /**
   * Links the provider subject to an account that has none; with `dropPassword` the password goes
   * too (an unproven address: whoever set it must not keep access). False when the account is
   * already linked.
   */
  async linkSubject(userId: number, googleSub: string, dropPassword: boolean): Promise<boolean> {
    const changed = await this.prisma.user.updateMany({
      where: { id: userId, googleSub: null },
      data: dropPassword ? { googleSub, passwordHash: null } : { googleSub },
    });
    return changed.count > 0;
  }

  /** The provider proved the address: it and, when primary, the account's flag become verified. */
  async markAddressVerified(userId: number, email: string): Promise<void> {
    await this.prisma.userEmail.update({ where: { email }, data: { isVerified: true, verifiedAt: new Date() } });
    await this.prisma.user.updateMany({ where: { id: userId, email }, data: { emailVerified: true } });
  }
}

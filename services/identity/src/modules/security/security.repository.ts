import type { PrismaClient } from '../../generated/prisma/client.js';
import { accountsRepository as accounts } from '../accounts/accounts.repository.js';
import { oneTimeTokens, type TokenPurpose } from '../accounts/one-time-tokens.repository.js';
import { enqueueMail } from '../mail/mail-outbox.repository.js';
import type { MailContent } from '../mail/mail.templates.js';

export interface PasswordOwner {
  id: number;
  email: string;
  username: string | null;
}

export type EmailChangeOutcome = 'invalid' | 'already' | 'taken' | 'changed' | 'added';

/** What SecurityService needs of this repository (unit tests give fakes). */
export type SecurityStore = Pick<
  SecurityRepository,
  | 'findAccountByEmail'
  | 'emailExists'
  | 'issueResetToken'
  | 'resetPassword'
  | 'passwordOwner'
  | 'setPasswordHash'
  | 'displayNameOf'
  | 'issueEmailChangeToken'
  | 'applyEmailChange'
  | 'emailAddress'
  | 'setPrimaryEmail'
>;

/**
 * Passwords, e-mail addresses and the one-time tokens that change them (AUTH-8, AUTH-9,
 * SEC-1…SEC-4, USR-12, USR-13). Each token-driven change is one transaction with the mail it
 * queues.
 */
export class SecurityRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findAccountByEmail(email: string) {
    return accounts.findByEmail(this.prisma, email);
  }

  emailExists(email: string): Promise<boolean> {
    return accounts.emailExists(this.prisma, email);
  }

  /** A reset token and its mail, unless the account already got `cap` of them this hour. */
  issueResetToken(userId: number, email: string, cap: number, mail: (token: string) => MailContent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const token = await oneTimeTokens.issueCapped(tx, userId, 'RESET_PASSWORD', email, cap);
      if (!token) return false;
      await enqueueMail(tx, email, mail(token));
      return true;
    });
  }

  /**
   * Consumes a live reset token and stores the hash `newHash` returns for its user (which may
   * throw to refuse the password: nothing is then changed); the address the link went to becomes
   * verified. Null for an unknown, used or expired token.
   */
  resetPassword(token: string, newHash: (user: PasswordOwner) => Promise<string>): Promise<PasswordOwner | null> {
    return this.prisma.$transaction(
      async (tx) => {
        const row = await oneTimeTokens.consume(tx, token, ['RESET_PASSWORD']);
        if (!row?.live) return null;
        const user = await tx.user.findUnique({ where: { id: row.userId }, select: { id: true, email: true, username: true } });
        if (!user) return null;
        await tx.user.update({ where: { id: user.id }, data: { passwordHash: await newHash(user) }, select: { id: true } });
        const address = await tx.userEmail.updateMany({
          where: { email: row.email, userId: user.id, isVerified: false },
          data: { isVerified: true, verifiedAt: new Date() },
        });
        if (address.count > 0) await tx.user.updateMany({ where: { id: user.id, email: row.email }, data: { emailVerified: true } });
        return user;
      },
      { timeout: 15_000 },
    );
  }

  passwordOwner(userId: number): Promise<(PasswordOwner & { passwordHash: string | null }) | null> {
    return this.prisma.user.findUnique({ where: { id: userId }, select: { id: true, email: true, username: true, passwordHash: true } });
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { passwordHash }, select: { id: true } });
  }

  displayNameOf(userId: number): Promise<{ id: number; displayName: string } | null> {
    return this.prisma.user.findUnique({ where: { id: userId }, select: { id: true, displayName: true } });
  }

  async issueEmailChangeToken(userId: number, purpose: 'CHANGE_EMAIL' | 'ADD_EMAIL', newEmail: string, mail: (token: string) => MailContent): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const token = await oneTimeTokens.issue(tx, userId, purpose satisfies TokenPurpose, newEmail);
      await enqueueMail(tx, newEmail, mail(token));
    });
  }

  /**
   * USR-13: consumes a CHANGE_EMAIL or ADD_EMAIL token and applies it. A change replaces the
   * primary address and tells the old one (`notice`); a repeated click on an applied link reads
   * `already`; an address another account verified meanwhile reads `taken`.
   */
  applyEmailChange(token: string, notice: (displayName: string, newEmail: string) => MailContent): Promise<EmailChangeOutcome> {
    return this.prisma.$transaction(async (tx): Promise<EmailChangeOutcome> => {
      const row = await oneTimeTokens.consume(tx, token, ['CHANGE_EMAIL', 'ADD_EMAIL']);
      if (!row) return 'invalid';
      const existing = await tx.userEmail.findUnique({ where: { email: row.email }, select: { userId: true, isVerified: true } });
      if (existing?.userId === row.userId && existing.isVerified && (row.purpose === 'ADD_EMAIL' || !row.live)) return 'already';
      if (!row.live) return 'invalid';
      if (existing && existing.userId !== row.userId) return 'taken';
      const user = await tx.user.findUnique({ where: { id: row.userId }, select: { id: true, email: true, displayName: true } });
      if (!user) return 'invalid';
      if (!existing) await tx.userEmail.create({ data: { userId: user.id, email: row.email, isVerified: true, verifiedAt: new Date() } });
      if (row.purpose === 'CHANGE_EMAIL') {
        // The new address replaces the old primary one.
        await tx.user.update({ where: { id: user.id }, data: { email: row.email, emailVerified: true }, select: { id: true } });
        if (user.email !== row.email) {
          await tx.userEmail.deleteMany({ where: { userId: user.id, email: user.email } });
          await enqueueMail(tx, user.email, notice(user.displayName, row.email));
        }
        return 'changed';
      }
      return 'added';
    });
  }

  emailAddress(email: string): Promise<{ userId: number; isVerified: boolean } | null> {
    return this.prisma.userEmail.findUnique({ where: { email }, select: { userId: true, isVerified: true } });
  }

  async setPrimaryEmail(userId: number, email: string): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { email, emailVerified: true }, select: { id: true } });
  }
}

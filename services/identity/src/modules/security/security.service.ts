import { AppError, isUniqueViolation } from '@msp/errors';
import type { Redis } from 'ioredis';
import type { IdentityConfig } from '../../config.js';
import type { Links } from '../../links.js';
import { hashPassword, passwordProblem, verifyPassword } from '../accounts/passwords.js';
import type { MailRequestOutcome, MailRequests } from '../mail/mail-requests.js';
import { mailTemplates } from '../mail/mail.templates.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { KnownDevices } from '../sessions/known-devices.repository.js';
import { hitLimit, LoginThrottle } from '../sessions/throttle.js';
import type { PasswordOwner, SecurityStore } from './security.repository.js';

const HOUR_MS = 3600_000;

function weak(problem: string): AppError {
  return new AppError('WEAK_PASSWORD', problem, { errors: [{ field: 'newPassword', message: problem }] });
}

/** Password recovery and change, e-mail addresses (AUTH-8, AUTH-9, SEC-1…SEC-4, USR-12, USR-13). */
export class SecurityService {
  constructor(
    private readonly repo: SecurityStore,
    private readonly config: IdentityConfig,
    private readonly links: Links,
    private readonly redis: Pick<Redis, 'eval'>,
    private readonly sessions: Pick<SessionsService, 'revokeAllOf'>,
    private readonly onMailQueued: () => void,
    private readonly mailRequests: Pick<MailRequests, 'enqueue'>,
    private readonly throttle: Pick<LoginThrottle, 'clear'>,
    private readonly devices: Pick<KnownDevices, 'forgetAll' | 'find' | 'remember'>,
  ) {}

  /**
   * AUTH-8: the same answer, the same work and so the same time whether or not the address has an
   * account: after the per-address limit, one queued request (see `sendPasswordReset`).
   */
  async forgotPassword(email: string, ip: string) {
    await hitLimit(
      this.redis,
      `auth:forgot:ip:${ip}`,
      this.config.FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR,
      HOUR_MS,
      'Too many password recovery requests; try again later.',
    );
    await this.mailRequests.enqueue('RESET_PASSWORD', email);
    return { message: 'If an account uses this address, a password reset link is on its way.' };
  }

  /**
   * The queued part of AUTH-8: a reset link for the account holding the address, at most
   * RESET_MAILS_PER_ACCOUNT_PER_HOUR per account (any of its addresses), so rotating addresses or
   * headers cannot flood its owner.
   */
  async sendPasswordReset(email: string): Promise<MailRequestOutcome> {
    const found = await this.repo.findAccountByEmail(email);
    // Admin accounts are managed in configuration; their passwords are not reset by mail.
    if (!found || found.user.role === 'ADMIN') return 'none';
    const sent = await this.repo.issueResetToken(found.user.id, email, this.config.RESET_MAILS_PER_ACCOUNT_PER_HOUR, (token) =>
      mailTemplates.resetPassword(found.user.displayName, this.links.webLink('change-password', token)),
    );
    if (!sent) return 'capped';
    this.onMailQueued();
    return 'sent';
  }

  /**
   * AUTH-9. The reset link also proves the address, so an unverified one becomes verified; it
   * proves control of the account too, so its failed-login backoff is lifted and this client
   * becomes a known device (the way back in for an owner whose account is under attack). Returns
   * the known-device token for the cookie.
   */
  async resetPassword(token: string, newPassword: string, logoutAll: boolean, presentedDevice: string | null) {
    const hashed = await this.repo.resetPassword(token, async (user: PasswordOwner) => {
      const problem = passwordProblem(newPassword, user.email, user.username);
      if (problem) throw weak(problem);
      return hashPassword(newPassword);
    });
    if (!hashed) throw new AppError('INVALID_TOKEN', 'This reset link is invalid or has expired.');
    // The reset already committed; a throttle left behind expires on its own (Redis TTL).
    await this.throttle.clear(LoginThrottle.subject(hashed.id, hashed.email)).catch(() => undefined);
    if (logoutAll) {
      await this.sessions.revokeAllOf(hashed.id, 'password-reset');
      // Devices that knew the old password may be the intruder's: they start over.
      await this.devices.forgetAll(hashed.id);
    }
    const device = logoutAll ? null : await this.devices.find(presentedDevice);
    const knownDevice = await this.devices.remember(hashed.id, device);
    return { message: 'Your password has been changed.', knownDevice };
  }

  /** SEC-4: other sessions are revoked; the caller's stays. */
  async changePassword(userId: number, sessionId: string | null, currentPassword: string | null | undefined, newPassword: string) {
    const user = await this.repo.passwordOwner(userId);
    if (!user) throw new AppError('UNAUTHORIZED');
    if (user.passwordHash) {
      if (!currentPassword || !(await verifyPassword(user.passwordHash, currentPassword))) {
        throw new AppError('INVALID_CURRENT_PASSWORD', 'The current password is wrong.');
      }
    }
    const problem = passwordProblem(newPassword, user.email, user.username);
    if (problem) throw weak(problem);
    await this.repo.setPasswordHash(user.id, await hashPassword(newPassword));
    await this.sessions.revokeAllOf(user.id, 'password-change', sessionId);
    return { message: 'Your password has been changed. Other sessions were logged out.' };
  }

  /** SEC-1 / USR-12 (CHANGE_EMAIL) and SEC-2 (ADD_EMAIL): a link to the new address, applied by USR-13. */
  async startEmailChange(userId: number, newEmail: string, purpose: 'CHANGE_EMAIL' | 'ADD_EMAIL') {
    const user = await this.repo.displayNameOf(userId);
    if (!user) throw new AppError('UNAUTHORIZED');
    if (await this.repo.emailExists(newEmail)) throw new AppError('EMAIL_TAKEN', 'This e-mail address is already in use.');
    await this.repo.issueEmailChangeToken(user.id, purpose, newEmail, (token) =>
      mailTemplates.changeEmail(user.displayName, this.links.webLink('settings/verify-email-change', token)),
    );
    this.onMailQueued();
    return {
      message:
        purpose === 'CHANGE_EMAIL'
          ? 'Check your new address: the change applies once you follow the link we sent.'
          : 'Check that address: it is added once you follow the link we sent.',
    };
  }

  /** USR-13. */
  async verifyEmailChange(token: string) {
    const outcome = await this.repo.applyEmailChange(token, mailTemplates.emailChangedNotice).catch((err: unknown) => {
      if (isUniqueViolation(err, 'email')) return 'taken' as const;
      throw err;
    });
    switch (outcome) {
      case 'invalid':
        throw new AppError('INVALID_TOKEN', 'This link is invalid or has expired.');
      case 'already':
        throw new AppError('ALREADY_VERIFIED', 'This address is already verified.');
      case 'taken':
        throw new AppError('EMAIL_TAKEN', 'This e-mail address is already in use.');
      case 'changed':
        this.onMailQueued();
        return { message: 'Your e-mail address has been changed.' };
      default:
        return { message: 'The address has been added to your account.' };
    }
  }

  /** SEC-3. */
  async setPrimaryEmail(userId: number, email: string) {
    const address = await this.repo.emailAddress(email);
    if (!address || address.userId !== userId) throw new AppError('EMAIL_NOT_FOUND', 'This address is not one of yours.');
    if (!address.isVerified) throw new AppError('EMAIL_UNVERIFIED', 'Verify this address first.');
    await this.repo.setPrimaryEmail(userId, email);
    return { message: 'Your primary e-mail address has been changed.' };
  }
}

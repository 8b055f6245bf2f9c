import { AppError } from '@msp/errors';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { accountsRepository as accounts, type TokenUser } from '../accounts/accounts.repository.js';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from '../accounts/passwords.js';
import { assertNotLocked, type ClientContext, type IssuedTokens, type SessionsService } from './sessions.service.js';
import type { LoginThrottle } from './throttle.js';

const BAD_CREDENTIALS = 'The e-mail address or password is wrong.';

/**
 * AUTH-1 and MOD-1. Every attempt costs exactly one argon2 verification (against a dummy hash for
 * unknown addresses and password-less accounts), and the account's state (verified, banned, admin)
 * is only revealed after the right password, so answers and timings do not tell whether an
 * address has an account.
 */
export class LoginService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottle,
  ) {}

  /** The user behind the e-mail and password, or 401/429 after counting the failure. */
  async authenticate(email: string, password: string, ip: string): Promise<{ user: TokenUser; addressVerified: boolean }> {
    await this.throttle.check(email, ip);
    const found = await accounts.findByEmail(this.prisma, email);
    const hash = found?.user.passwordHash ?? (await dummyHash());
    const ok = await verifyPassword(hash, password);
    if (!found || !found.user.passwordHash || !ok) {
      await this.throttle.recordFailure(email, ip);
      throw new AppError('INVALID_CREDENTIALS', BAD_CREDENTIALS);
    }
    await this.throttle.recordSuccess(email, ip);
    if (needsRehash(found.user.passwordHash)) {
      const upgraded = await hashPassword(password);
      await this.prisma.user.update({ where: { id: found.user.id }, data: { passwordHash: upgraded }, select: { id: true } });
    }
    return found;
  }

  /** AUTH-1: listeners and artists with a verified address; admin accounts use MOD-1 only. */
  async loginLocal(email: string, password: string, client: ClientContext): Promise<IssuedTokens> {
    const { user, addressVerified } = await this.authenticate(email, password, client.ip);
    if (user.role === 'ADMIN') throw new AppError('INVALID_CREDENTIALS', BAD_CREDENTIALS);
    assertNotLocked(user);
    if (!addressVerified) throw new AppError('EMAIL_NOT_VERIFIED', 'Verify your e-mail address before logging in.');
    return this.sessions.start(user, client, { refreshable: true });
  }

  /** MOD-1: admin accounts only; a 30-minute token and no refresh token (R13). */
  async loginAdmin(email: string, password: string, client: ClientContext) {
    const { user } = await this.authenticate(email, password, client.ip);
    if (user.role !== 'ADMIN') throw new AppError('INVALID_CREDENTIALS', BAD_CREDENTIALS);
    const issued = await this.sessions.start(user, client, { refreshable: false });
    return {
      accessToken: issued.response.accessToken,
      expiresIn: issued.response.expiresIn,
      adminUser: {
        id: user.id,
        username: user.username,
        displayName: user.displayName,
        avatarUrl: issued.response.user.avatarUrl,
      },
    };
  }
}

import { AppError } from '@msp/errors';
import { loginAttempts } from '../../metrics.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from '../accounts/passwords.js';
import type { KnownDevice, KnownDevices } from './known-devices.repository.js';
import { assertNotLocked, type ClientContext, type IssuedTokens, type SessionsService } from './sessions.service.js';
import { LoginThrottle, rateLimited } from './throttle.js';
import type { SessionsRepository } from './sessions.repository.js';

const BAD_CREDENTIALS = 'The e-mail address or password is wrong.';

export interface LocalLogin {
  issued: IssuedTokens;
  /** A new known-device token for the cookie, or null to keep the presented one. */
  knownDevice: string | null;
}

/** AUTH-1 with two-factor sign-in on: no session yet; MFA-4 completes the login. */
export interface MfaRequired {
  mfaRequired: true;
  mfaToken: string;
}

/** The second step of AUTH-1 (MfaService): the attempt's mfaToken, or null when none is needed. */
export interface SecondStep {
  challenge(user: TokenUser, client: ClientContext, presentedDevice: KnownDevice | null): Promise<string | null>;
}

/**
 * AUTH-1 and MOD-1. Every attempt that is not refused by a limit costs exactly one argon2
 * verification (against a dummy hash for unknown addresses and password-less accounts), and the
 * account's state (verified, banned, admin) is only revealed after the right password, so answers
 * and timings do not tell whether an address has an account.
 */
export class LoginService {
  constructor(
    private readonly repo: Pick<SessionsRepository, 'findAccountByEmail' | 'upgradePasswordHash'>,
    private readonly sessions: Pick<SessionsService, 'start'>,
    private readonly throttle: Pick<LoginThrottle, 'devicePasses' | 'check' | 'recordFailure' | 'clear'>,
    private readonly devices: Pick<KnownDevices, 'find' | 'remember'>,
    private readonly secondStep: SecondStep | null = null,
  ) {}

  /** The user behind the e-mail and password, or 401/429 after counting the failure. */
  async authenticate(
    email: string,
    password: string,
    client: ClientContext,
  ): Promise<{ user: TokenUser; addressVerified: boolean; presentedDevice: KnownDevice | null }> {
    const [found, presentedDevice] = await Promise.all([this.repo.findAccountByEmail(email), this.devices.find(client.knownDevice)]);
    const userId = found?.user.id ?? null;
    const subject = LoginThrottle.subject(userId, email);
    const trusted = await this.throttle.devicePasses(presentedDevice, userId);
    if (!trusted) {
      const refusal = await this.throttle.check(subject, client.ip);
      if (refusal) {
        loginAttempts.inc({ outcome: refusal.limit === 'address' ? 'throttled_address' : 'throttled_account' });
        throw rateLimited(
          refusal.retryMs,
          refusal.limit === 'address'
            ? 'Too many failed logins from this address; try again later.'
            : 'Too many failed logins for this account; try again later, or reset the password.',
        );
      }
    }
    const hash = found?.user.passwordHash ?? (await dummyHash());
    const ok = await verifyPassword(hash, password);
    if (!found || !found.user.passwordHash || !ok) {
      await this.throttle.recordFailure(subject, client.ip, trusted ? presentedDevice : null);
      loginAttempts.inc({ outcome: 'invalid_credentials' });
      throw new AppError('INVALID_CREDENTIALS', BAD_CREDENTIALS);
    }
    loginAttempts.inc({ outcome: 'success' });
    await this.throttle.clear(subject, presentedDevice?.userId === found.user.id ? presentedDevice : null);
    if (needsRehash(found.user.passwordHash)) {
      const upgraded = await hashPassword(password);
      await this.repo.upgradePasswordHash(found.user.id, upgraded);
    }
    return { ...found, presentedDevice };
  }

  /**
   * AUTH-1: listeners and artists with a verified address; admin accounts use MOD-1 only. The
   * device becomes (or stays) a known device of the account.
   */
  async loginLocal(email: string, password: string, client: ClientContext): Promise<LocalLogin | MfaRequired> {
    const { user, addressVerified, presentedDevice } = await this.authenticate(email, password, client);
    if (user.role === 'ADMIN') throw new AppError('INVALID_CREDENTIALS', BAD_CREDENTIALS);
    assertNotLocked(user);
    if (!addressVerified) throw new AppError('EMAIL_NOT_VERIFIED', 'Verify your e-mail address before logging in.');
    // Two-factor sign-in on (docs/account-security.md): the session waits for MFA-4.
    const mfaToken = await this.secondStep?.challenge(user, client, presentedDevice);
    if (mfaToken) return { mfaRequired: true, mfaToken };
    const issued = await this.sessions.start(user, client, { refreshable: true });
    return { issued, knownDevice: await this.devices.remember(user.id, presentedDevice) };
  }

  /** MOD-1: admin accounts only; a 30-minute token and no refresh token (R13). */
  async loginAdmin(email: string, password: string, client: ClientContext) {
    const { user } = await this.authenticate(email, password, client);
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

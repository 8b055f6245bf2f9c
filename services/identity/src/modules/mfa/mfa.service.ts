import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { DeviceInfo } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import type { TokenUser } from '../accounts/accounts.repository.js';
import type { PasskeysService } from '../passkeys/passkeys.service.js';
import type { KnownDevice, KnownDevices } from '../sessions/known-devices.repository.js';
import { hashSecret, randomSecret } from '../sessions/secrets.js';
import { assertNotLocked, type ClientContext, type IssuedTokens, type SessionsService } from '../sessions/sessions.service.js';
import { type MfaCrypto, matchTotpStep, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpSecretText, totpUri } from './mfa.crypto.js';
import type { MfaStore } from './mfa.repository.js';
import type { MfaThrottle } from './mfa.throttle.js';

/** An mfaToken (AUTH-1 → MFA-4) lives this long. */
export const MFA_TOKEN_TTL_SECONDS = 300;
/** A device that completed a second step skips the next ones for this long. */
export const MFA_DEVICE_TRUST_DAYS = 30;
const MFA_TOKEN_PREFIX = 'mfa_';

/** The login attempt an mfaToken stands for (Redis, 5 min). */
interface PendingLogin {
  userId: number;
  /** SHA-256 of the User-Agent of the attempt: MFA-4 must come from the same client. */
  agent: string;
  deviceInfo: DeviceInfo | null;
}

export type SecondFactorProof = { code: string } | { recoveryCode: string } | { passkey: AuthenticationResponseJSON };

export interface CompletedLogin {
  issued: IssuedTokens;
  /** A new known-device token for the cookie, or null to keep the presented one. */
  knownDevice: string | null;
}

const agentHash = (userAgent: string) => createHash('sha256').update(userAgent).digest('base64url');
const invalidToken = () => new AppError('INVALID_MFA_TOKEN', 'The two-factor login has expired or is not valid; log in again.');
const wrongCode = (message = 'The code is wrong or was already used.') => new AppError('INVALID_MFA_CODE', message);

/**
 * Two-factor sign-in (docs/account-security.md): TOTP enrolment and removal (MFA-1…MFA-3), the
 * second step of AUTH-1 (mfaToken → MFA-4), recovery codes and the security overview (MFA-5).
 */
export class MfaService {
  constructor(
    private readonly repo: MfaStore,
    private readonly crypto: MfaCrypto,
    private readonly throttle: Pick<MfaThrottle, 'assertOpen' | 'recordFailure' | 'clear'>,
    private readonly redis: Pick<Redis, 'set' | 'get' | 'del'>,
    private readonly config: IdentityConfig,
    private readonly sessions: Pick<SessionsService, 'start'>,
    private readonly devices: Pick<KnownDevices, 'find' | 'remember'>,
    private readonly passkeys: Pick<PasskeysService, 'list' | 'authenticationOptions' | 'verifyAssertion'>,
  ) {}

  /** MFA-1: a new pending secret; shown this once. */
  async enrol(userId: number) {
    const user = await this.repo.findTokenUser(userId);
    if (!user) throw new AppError('UNAUTHORIZED');
    const secret = newTotpSecret();
    if (!(await this.repo.startEnrolment(userId, this.crypto.encrypt(secret)))) {
      throw new AppError('MFA_ALREADY_ENABLED', 'Two-factor sign-in is already on; turn it off first to enrol a new authenticator.');
    }
    return { secret: totpSecretText(secret), otpauthUri: totpUri(this.config.MFA_ISSUER, user.email, secret) };
  }

  /** MFA-2: the first code turns the factor on; ten recovery codes, shown this once. */
  async confirm(userId: number, code: string) {
    const factor = await this.repo.factor(userId);
    if (!factor) throw new AppError('MFA_NOT_PENDING', 'Start the enrolment first (MFA-1).');
    if (factor.confirmedAt) throw new AppError('MFA_ALREADY_ENABLED', 'Two-factor sign-in is already on.');
    await this.throttle.assertOpen(userId);
    const step = matchTotpStep(this.crypto.decrypt(factor.secret), code);
    if (step === null || !(await this.repo.acceptStep(userId, step, true))) {
      await this.throttle.recordFailure(userId);
      throw wrongCode();
    }
    await this.throttle.clear(userId);
    const recoveryCodes = newRecoveryCodes();
    await this.repo.saveRecoveryCodes(userId, recoveryCodes.map(recoveryCodeHash));
    return { recoveryCodes };
  }

  /** MFA-3: a current code or a recovery code turns the factor off. */
  async disable(userId: number, proof: { code: string } | { recoveryCode: string }) {
    const factor = await this.repo.factor(userId);
    if (!factor?.confirmedAt) throw new AppError('MFA_NOT_ENABLED', 'Two-factor sign-in is not on.');
    await this.checkCode(userId, factor.secret, proof);
    await this.repo.removeFactor(userId);
    return { message: 'Two-factor sign-in is off.' };
  }

  /** ACC-3: a current code or a recovery code proves the owner of an account without a password. */
  async verifyProof(userId: number, proof: { code: string } | { recoveryCode: string }): Promise<void> {
    const factor = await this.repo.factor(userId);
    if (!factor?.confirmedAt) throw new AppError('MFA_NOT_ENABLED', 'Two-factor sign-in is not on.');
    await this.checkCode(userId, factor.secret, proof);
  }

  /** MFA-5. */
  async overview(userId: number) {
    const [factor, passkeys, left] = await Promise.all([this.repo.factor(userId), this.passkeys.list(userId), this.repo.recoveryCodesLeft(userId)]);
    const enabled = Boolean(factor?.confirmedAt);
    return {
      totp: { enabled, enabledAt: factor?.confirmedAt ?? null },
      passkeys,
      recoveryCodesLeft: enabled ? left : 0,
    };
  }

  /**
   * AUTH-1 after the password: null when no second step is needed (TOTP off, or the device
   * completed one for this account in the last 30 days), else the mfaToken of this attempt.
   */
  async challenge(user: TokenUser, client: ClientContext, presentedDevice: KnownDevice | null): Promise<string | null> {
    const factor = await this.repo.factor(user.id);
    if (!factor?.confirmedAt) return null;
    if (presentedDevice?.userId === user.id) {
      const verifiedAt = await this.repo.deviceVerifiedAt(presentedDevice.id, user.id);
      if (verifiedAt && verifiedAt.getTime() > Date.now() - MFA_DEVICE_TRUST_DAYS * 86_400_000 && verifiedAt >= factor.confirmedAt) return null;
    }
    const token = MFA_TOKEN_PREFIX + randomSecret();
    const pending: PendingLogin = { userId: user.id, agent: agentHash(client.userAgent), deviceInfo: client.deviceInfo ?? null };
    await this.redis.set(this.pendingKey(token), JSON.stringify(pending), 'EX', MFA_TOKEN_TTL_SECONDS);
    return token;
  }

  private pendingKey(token: string): string {
    return `auth:mfa-pending:${hashSecret(token)}`;
  }

  /** The live login attempt behind `token`, made by this client (same User-Agent). */
  async pending(token: string, client: ClientContext): Promise<PendingLogin & { key: string }> {
    if (!token.startsWith(MFA_TOKEN_PREFIX) || token.length > 100) throw invalidToken();
    const key = this.pendingKey(token);
    const stored = await this.redis.get(key);
    if (!stored) throw invalidToken();
    const pending = JSON.parse(stored) as PendingLogin;
    if (pending.agent !== agentHash(client.userAgent)) throw invalidToken();
    return { ...pending, key };
  }

  /**
   * APP-12 (the OAuth consent page) after the password: proves the attempt's second factor (a TOTP
   * code or a recovery code, under the same throttle) and ends it (single use), without opening a
   * session: the consent page only needs to know the user. Answers that user.
   */
  async confirmAttempt(token: string, proof: { code: string } | { recoveryCode: string }, client: ClientContext): Promise<TokenUser> {
    const pending = await this.pending(token, client);
    const factor = await this.repo.factor(pending.userId);
    // Turned off since the password step: the password was the whole proof then.
    if (factor?.confirmedAt) await this.checkCode(pending.userId, factor.secret, proof);
    if ((await this.redis.del(pending.key)) !== 1) throw invalidToken();
    const user = await this.repo.findTokenUser(pending.userId);
    if (!user) throw invalidToken();
    return user;
  }

  /** MFA-11 with an mfaToken: passkey options for the second step of that attempt. */
  async passkeyOptions(token: string, client: ClientContext) {
    const pending = await this.pending(token, client);
    return this.passkeys.authenticationOptions({ purpose: 'mfa', userId: pending.userId, pendingKey: pending.key });
  }

  /**
   * MFA-4: checks the second factor, then ends the attempt (its token is single use: of two
   * concurrent completions only the one that deletes it wins) and opens the session.
   */
  async complete(token: string, proof: SecondFactorProof, client: ClientContext): Promise<CompletedLogin> {
    const pending = await this.pending(token, client);
    if ('passkey' in proof) {
      await this.passkeys.verifyAssertion(proof.passkey, { purpose: 'mfa', userId: pending.userId, pendingKey: pending.key });
    } else {
      const factor = await this.repo.factor(pending.userId);
      // Turned off since the password step: the password was the whole proof then.
      if (factor?.confirmedAt) await this.checkCode(pending.userId, factor.secret, proof);
    }
    if ((await this.redis.del(pending.key)) !== 1) throw invalidToken();
    const user = await this.repo.findTokenUser(pending.userId);
    if (!user) throw invalidToken();
    return this.finishLogin(user, { ...client, deviceInfo: pending.deviceInfo ?? client.deviceInfo }, await this.devices.find(client.knownDevice));
  }

  /**
   * MFA-12: a user-verified passkey is both factors, so it signs in without password or code.
   * Admin accounts sign in through MOD-1 only.
   */
  async passkeyLogin(response: AuthenticationResponseJSON, client: ClientContext): Promise<CompletedLogin> {
    const userId = await this.passkeys.verifyAssertion(response, { purpose: 'login' });
    const user = await this.repo.findTokenUser(userId);
    if (!user || user.role === 'ADMIN') throw new AppError('PASSKEY_REJECTED', 'This passkey cannot sign in here.');
    return this.finishLogin(user, client, await this.devices.find(client.knownDevice));
  }

  /**
   * A login whose second factor is proven (MFA-4, MFA-12): the session, and the device becomes
   * (or stays) known and skips the second step for 30 days.
   */
  async finishLogin(user: TokenUser, client: ClientContext, presentedDevice: KnownDevice | null): Promise<CompletedLogin> {
    assertNotLocked(user);
    const issued = await this.sessions.start(user, client, { refreshable: true });
    const knownDevice = await this.devices.remember(user.id, presentedDevice);
    await this.repo.markDeviceVerified(knownDevice ? { token: knownDevice } : { id: presentedDevice!.id });
    return { issued, knownDevice };
  }

  /** A TOTP code (once: no replay of its time step) or an unused recovery code, under the throttle. */
  private async checkCode(userId: number, encryptedSecret: string, proof: { code: string } | { recoveryCode: string }): Promise<void> {
    await this.throttle.assertOpen(userId);
    let ok: boolean;
    if ('code' in proof) {
      const step = matchTotpStep(this.crypto.decrypt(encryptedSecret), proof.code);
      ok = step !== null && (await this.repo.acceptStep(userId, step, false));
    } else {
      ok = await this.repo.useRecoveryCode(userId, recoveryCodeHash(proof.recoveryCode));
    }
    if (!ok) {
      await this.throttle.recordFailure(userId);
      throw wrongCode();
    }
    await this.throttle.clear(userId);
  }
}

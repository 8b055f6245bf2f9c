import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Redis } from 'ioredis';
import { AppError, isUniqueViolation } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import type { MfaCrypto } from '../mfa/mfa.crypto.js';
import { MAX_PASSKEYS_PER_ACCOUNT, type PasskeysStore, type PasskeyView } from './passkeys.repository.js';

/** A challenge lives this long and is used at most once. */
export const CHALLENGE_TTL_SECONDS = 300;

/**
 * What a challenge was issued for: registering a passkey for `userId` (MFA-6/7), a password-less
 * sign-in (MFA-11/12), or the second step of the login attempt `pendingKey` of `userId` (MFA-4).
 */
export type ChallengeScope = { purpose: 'register'; userId: number } | { purpose: 'login' } | { purpose: 'mfa'; userId: number; pendingKey: string };

function challengeOf(clientDataJSON: unknown): string | null {
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 4096) return null;
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length <= 200 ? data.challenge : null;
  } catch {
    return null;
  }
}

function sameScope(a: ChallengeScope, b: ChallengeScope): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const rejected = (message = 'The passkey could not be verified.') => new AppError('PASSKEY_REJECTED', message);
const badRegistration = (message = 'The passkey could not be registered.') => new AppError('INVALID_PASSKEY_REGISTRATION', message);

/**
 * Passkeys (WebAuthn, @simplewebauthn/server): registration while signed in, discoverable
 * sign-in without a password, and the second step of a two-factor login. Every ceremony starts
 * with a random challenge kept in Redis for 5 minutes under its scope; verification takes it out
 * (GETDEL), so it is single use, and refuses an assertion whose client data names another origin
 * or relying party.
 */
export class PasskeysService {
  readonly rpId: string;
  readonly origins: string[];

  constructor(
    private readonly repo: PasskeysStore,
    private readonly crypto: MfaCrypto,
    private readonly redis: Pick<Redis, 'set' | 'getdel'>,
    private readonly config: IdentityConfig,
  ) {
    this.rpId = config.WEBAUTHN_RP_ID ?? new URL(config.WEB_BASE_URL).hostname;
    this.origins = config.WEBAUTHN_ORIGINS ?? [...new Set([new URL(config.WEB_BASE_URL).origin, new URL(config.PUBLIC_BASE_URL).origin])];
  }

  private challengeKey(challenge: string): string {
    return `auth:webauthn:${challenge}`;
  }

  private async remember(challenge: string, scope: ChallengeScope): Promise<void> {
    await this.redis.set(this.challengeKey(challenge), JSON.stringify(scope), 'EX', CHALLENGE_TTL_SECONDS);
  }

  /** Takes the challenge out of the store: true when it was issued for `scope` and is still live. */
  private async consume(challenge: string | null, scope: ChallengeScope): Promise<boolean> {
    if (!challenge) return false;
    const stored = await this.redis.getdel(this.challengeKey(challenge));
    if (!stored) return false;
    return sameScope(JSON.parse(stored) as ChallengeScope, scope);
  }

  /** MFA-6. */
  async registrationOptions(user: { id: number; username: string; displayName: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.repo.credentialsOf(user.id);
    if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw badRegistration(`An account holds at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`);
    const options = await generateRegistrationOptions({
      rpName: this.config.MFA_ISSUER,
      rpID: this.rpId,
      userName: user.username,
      userDisplayName: user.displayName,
      userID: this.crypto.userHandle(user.id) as Uint8Array<ArrayBuffer>,
      attestationType: 'none',
      timeout: CHALLENGE_TTL_SECONDS * 1000,
      excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports as AuthenticatorTransport[] })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.remember(options.challenge, { purpose: 'register', userId: user.id });
    return options;
  }

  /** MFA-7. */
  async register(userId: number, response: RegistrationResponseJSON, name: string | undefined): Promise<PasskeyView> {
    const challenge = challengeOf(response.response?.clientDataJSON);
    if (!(await this.consume(challenge, { purpose: 'register', userId }))) throw badRegistration('The registration challenge is unknown, used or expired.');
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge!,
      expectedOrigin: this.origins,
      expectedRPID: this.rpId,
      requireUserVerification: false,
    }).catch((err: Error) => {
      throw badRegistration(`The passkey could not be registered: ${err.message}`);
    });
    if (!verified.verified) throw badRegistration();
    const { credential } = verified.registrationInfo;
    const count = await this.repo.count(userId);
    if (count >= MAX_PASSKEYS_PER_ACCOUNT) throw badRegistration(`An account holds at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys.`);
    return this.repo
      .create({
        userId,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? [],
        name: name ?? `Passkey ${count + 1}`,
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw badRegistration('This passkey is already registered.');
        throw err;
      });
  }

  list(userId: number): Promise<PasskeyView[]> {
    return this.repo.list(userId);
  }

  /** MFA-9. */
  async rename(userId: number, id: number, name: string): Promise<PasskeyView> {
    const renamed = await this.repo.rename(userId, id, name);
    if (!renamed) throw new AppError('PASSKEY_NOT_FOUND', 'No such passkey.');
    return renamed;
  }

  /** MFA-10. */
  async remove(userId: number, id: number): Promise<void> {
    if (!(await this.repo.remove(userId, id))) throw new AppError('PASSKEY_NOT_FOUND', 'No such passkey.');
  }

  /**
   * MFA-11: options for a password-less sign-in (no allowed credentials: the authenticator offers
   * its discoverable ones), or for the second step of a login (the account's passkeys).
   */
  async authenticationOptions(scope: Exclude<ChallengeScope, { purpose: 'register' }>): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allow = scope.purpose === 'mfa' ? await this.repo.credentialsOf(scope.userId) : [];
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      timeout: CHALLENGE_TTL_SECONDS * 1000,
      userVerification: scope.purpose === 'login' ? 'required' : 'preferred',
      allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports as AuthenticatorTransport[] })),
    });
    await this.remember(options.challenge, scope);
    return options;
  }

  /**
   * MFA-12 and MFA-4: verifies an assertion against its challenge's scope; the account it signs
   * in. A password-less sign-in needs user verification (the passkey then is both factors).
   */
  async verifyAssertion(response: AuthenticationResponseJSON, scope: Exclude<ChallengeScope, { purpose: 'register' }>): Promise<number> {
    const challenge = challengeOf(response.response?.clientDataJSON);
    if (!(await this.consume(challenge, scope))) throw rejected('The sign-in challenge is unknown, used or expired.');
    const passkey = typeof response.id === 'string' && response.id.length <= 1024 ? await this.repo.byCredentialId(response.id) : null;
    if (!passkey || (scope.purpose === 'mfa' && passkey.userId !== scope.userId)) throw rejected('This passkey is not registered.');
    const handle = response.response.userHandle;
    if (handle && handle !== Buffer.from(this.crypto.userHandle(passkey.userId)).toString('base64url')) throw rejected();
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge!,
      expectedOrigin: this.origins,
      expectedRPID: this.rpId,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey) as Uint8Array<ArrayBuffer>,
        counter: Number(passkey.counter),
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification: scope.purpose === 'login',
    }).catch((err: Error) => {
      throw rejected(`The passkey could not be verified: ${err.message}`);
    });
    if (!verified.verified) throw rejected();
    await this.repo.used(passkey.id, verified.authenticationInfo.newCounter);
    return passkey.userId;
  }
}

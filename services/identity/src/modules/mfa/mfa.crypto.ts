import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from '@oslojs/encoding';
import { createTOTPKeyURI, generateHOTP } from '@oslojs/otp';
import type { IdentityConfig } from '../../config.js';

/** RFC 6238 defaults every authenticator app understands: 30-s steps, 6 digits, HMAC-SHA1. */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one (clock drift of the phone). */
const DRIFT_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;

const DEVELOPMENT_KEY = 'development-only totp secret key: set MFA_ENCRYPTION_KEY';

/**
 * The AES-256 key that encrypts stored TOTP secrets: MFA_ENCRYPTION_KEY, else a key derived from
 * the service's GATEWAY_ASSERTION_KEY (a production secret already), else a fixed development key.
 */
export function secretKeyOf(config: Pick<IdentityConfig, 'MFA_ENCRYPTION_KEY' | 'GATEWAY_ASSERTION_KEY'>): Buffer {
  if (config.MFA_ENCRYPTION_KEY) return createHash('sha256').update(config.MFA_ENCRYPTION_KEY).digest();
  const base = config.GATEWAY_ASSERTION_KEY ?? DEVELOPMENT_KEY;
  return Buffer.from(hkdfSync('sha256', base, 'identity', 'totp-secret-encryption', 32));
}

/** TOTP secrets and WebAuthn user handles: the one place their key material is used. */
export class MfaCrypto {
  constructor(private readonly key: Buffer) {}

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  encrypt(secret: Uint8Array): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(secret), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  decrypt(stored: string): Uint8Array {
    const [version, iv, tag, data] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || !data) throw new Error('unknown TOTP secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]));
  }

  /**
   * The WebAuthn user handle of an account: stable, opaque (not the user id), needs no storage.
   */
  userHandle(userId: number): Uint8Array {
    return new Uint8Array(createHmac('sha256', this.key).update(`webauthn-user:${userId}`).digest());
  }
}

export function newTotpSecret(): Uint8Array {
  return new Uint8Array(randomBytes(20));
}

export function totpSecretText(secret: Uint8Array): string {
  return encodeBase32UpperCaseNoPadding(secret);
}

export function totpUri(issuer: string, account: string, secret: Uint8Array): string {
  return createTOTPKeyURI(issuer, account, secret, TOTP_PERIOD_SECONDS, TOTP_DIGITS);
}

/** For tests and tools: the secret an authenticator app scanned. */
export function decodeTotpSecret(text: string): Uint8Array {
  return decodeBase32IgnorePadding(text);
}

/**
 * The time step whose code `code` is, among the current one ± DRIFT_STEPS, or null. Every
 * candidate is compared in constant time, so the answer time does not tell which step matched.
 */
export function matchTotpStep(secret: Uint8Array, code: string, now = Date.now()): bigint | null {
  if (!/^\d{6}$/.test(code)) return null;
  const current = BigInt(Math.floor(now / 1000 / TOTP_PERIOD_SECONDS));
  let found: bigint | null = null;
  for (let offset = -DRIFT_STEPS; offset <= DRIFT_STEPS; offset++) {
    const step = current + BigInt(offset);
    const expected = generateHOTP(secret, step, TOTP_DIGITS);
    if (timingSafeEqual(Buffer.from(expected), Buffer.from(code)) && found === null) found = step;
  }
  return found;
}

/** Ten codes of 80 random bits, `xxxx-xxxx-xxxx-xxxx` in lower-case base32. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => encodeBase32UpperCaseNoPadding(randomBytes(10)).toLowerCase().match(/.{4}/g)!.join('-'));
}

/** Stored form: SHA-256 of the code without separators or case (80 bits cannot be guessed offline). */
export function recoveryCodeHash(code: string): string {
  const normalised = code.toLowerCase().replace(/[^a-z2-7]/g, '');
  return createHash('sha256').update(normalised).digest('base64url');
}

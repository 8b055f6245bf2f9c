import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { RefreshDeliveryHeadersSchema } from './sessions.js';
import { LoginResponseSchema } from '../../records/auth.js';
import { MessageResponseSchema } from '../../records/common.js';
import { DateTimeSchema, IdSchema } from '../../records/primitives.js';

/** A TOTP code as typed (6 digits; a wrong one counts as a failed attempt, not a 400). */
const TotpCodeSchema = z.string().trim().min(1).max(16);
/** A recovery code as printed (`xxxx-xxxx-xxxx-xxxx`; case and separators ignored). */
const RecoveryCodeSchema = z.string().trim().min(1).max(64);

/** WebAuthn JSON as browsers produce it (`PublicKeyCredential.toJSON()`); checked in depth by the verifier. */
const b64url = z.string().min(1).max(16_384);
export const WebAuthnRegistrationCredentialSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: b64url, attestationObject: b64url, transports: z.array(z.string().max(32)).max(10).optional() }),
  clientExtensionResults: z.looseObject({}).optional().default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});
export const WebAuthnAssertionCredentialSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() }),
  clientExtensionResults: z.looseObject({}).optional().default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});

const exactlyOne = (keys: string[]) => (body: Record<string, unknown>) => keys.filter((k) => body[k] !== undefined).length === 1;

const confirmTotpBody = z.object({ code: TotpCodeSchema });

const disableTotpBody = z
  .object({ code: TotpCodeSchema.optional(), recoveryCode: RecoveryCodeSchema.optional() })
  .refine(exactlyOne(['code', 'recoveryCode']), { message: 'Give exactly one of code, recoveryCode.', path: ['code'] });

const completeMfaBody = z
  .object({
    mfaToken: z.string().min(1).max(200),
    code: TotpCodeSchema.optional(),
    recoveryCode: RecoveryCodeSchema.optional(),
    passkey: WebAuthnAssertionCredentialSchema.optional(),
  })
  .refine(exactlyOne(['code', 'recoveryCode', 'passkey']), { message: 'Give exactly one of code, recoveryCode, passkey.', path: ['code'] });

const totpEnrolment = z.object({
  /** Base32 secret for manual entry; shown once. */
  secret: z.string(),
  /** `otpauth://totp/…` for a QR code. */
  otpauthUri: z.string(),
});

const recoveryCodes = z.object({ recoveryCodes: z.array(z.string()) });

/** A passkey as MFA-5, MFA-7…MFA-9 answer it. */
export const MfaPasskeySchema = z.object({ id: IdSchema, name: z.string(), createdAt: DateTimeSchema, lastUsedAt: DateTimeSchema.nullable() });

const securityOverview = z.object({
  totp: z.object({ enabled: z.boolean(), enabledAt: DateTimeSchema.nullable() }),
  passkeys: z.array(MfaPasskeySchema),
  recoveryCodesLeft: z.number().int().nonnegative(),
});

const refreshDelivery = RefreshDeliveryHeadersSchema;

/** The operations of identity's mfa module (services/identity/src/modules/mfa): contract row, input and output. */
export const IDENTITY_MFA = {
  'MFA-1': {
    // MFA: two-factor sign-in and passkeys (docs/account-security.md)
    method: 'POST',
    path: '/users/me/mfa/totp',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Start TOTP enrolment',
    errors: ['UNAUTHORIZED', 'MFA_ALREADY_ENABLED'],

    response: { 200: totpEnrolment },
  },
  'MFA-2': {
    method: 'POST',
    path: '/users/me/mfa/totp/confirm',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Confirm TOTP enrolment',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'INVALID_MFA_CODE', 'MFA_NOT_PENDING', 'MFA_ALREADY_ENABLED'],
    description: 'The first code turns two-factor sign-in on; answers ten single-use recovery codes, shown this once.',
    body: confirmTotpBody,
    response: { 200: recoveryCodes },
  },
  'MFA-3': {
    // DELETE carries a small JSON body ({code} or {recoveryCode}) under the JSON limit, as `none` allows.
    method: 'DELETE',
    path: '/users/me/mfa/totp',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Turn TOTP off',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'INVALID_MFA_CODE', 'MFA_NOT_ENABLED'],
    description: 'Needs a current code or an unused recovery code; the recovery codes go with the factor.',
    body: disableTotpBody,
    response: { 200: MessageResponseSchema },
  },
  'MFA-4': {
    method: 'POST',
    path: '/auth/mfa',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Complete a two-factor login',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_MFA_TOKEN', 'INVALID_MFA_CODE', 'PASSKEY_REJECTED', 'ACCOUNT_BANNED', 'ACCOUNT_SUSPENDED'],
    description:
      'The mfaToken of AUTH-1 (5 min, single use, same client) with one of: a TOTP code, a recovery code, or a passkey assertion for options from MFA-11. ' +
      'Answers the Login response and sets the refresh cookie like AUTH-1. Five wrong codes lock the step (429 with Retry-After, 30 s doubling up to 15 min).',
    headers: refreshDelivery,
    body: completeMfaBody,
    response: { 200: LoginResponseSchema },
  },
  'MFA-5': {
    method: 'GET',
    path: '/users/me/security',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Security overview',
    errors: ['UNAUTHORIZED'],

    response: { 200: securityOverview },
  },
} satisfies Operations;

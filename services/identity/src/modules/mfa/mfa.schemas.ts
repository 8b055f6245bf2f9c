import { z } from 'zod';
import { DateTimeSchema, DeviceInfoSchema, IdSchema } from '@msp/contracts';

/** A TOTP code as typed (6 digits; a wrong one counts as a failed attempt, not a 400). */
export const TotpCodeSchema = z.string().trim().min(1).max(16);
/** A recovery code as printed (`xxxx-xxxx-xxxx-xxxx`; case and separators ignored). */
export const RecoveryCodeSchema = z.string().trim().min(1).max(64);

/** WebAuthn JSON as browsers produce it (`PublicKeyCredential.toJSON()`); checked in depth by the verifier. */
const b64url = z.string().min(1).max(16_384);
export const RegistrationCredentialSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: b64url, attestationObject: b64url, transports: z.array(z.string().max(32)).max(10).optional() }),
  clientExtensionResults: z.looseObject({}).optional().default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});
export const AssertionCredentialSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() }),
  clientExtensionResults: z.looseObject({}).optional().default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});

const exactlyOne = (keys: string[]) => (body: Record<string, unknown>) => keys.filter((k) => body[k] !== undefined).length === 1;

export const ConfirmTotpBodySchema = z.object({ code: TotpCodeSchema });

export const DisableTotpBodySchema = z
  .object({ code: TotpCodeSchema.optional(), recoveryCode: RecoveryCodeSchema.optional() })
  .refine(exactlyOne(['code', 'recoveryCode']), { message: 'Give exactly one of code, recoveryCode.', path: ['code'] });

export const CompleteMfaBodySchema = z
  .object({
    mfaToken: z.string().min(1).max(200),
    code: TotpCodeSchema.optional(),
    recoveryCode: RecoveryCodeSchema.optional(),
    passkey: AssertionCredentialSchema.optional(),
  })
  .refine(exactlyOne(['code', 'recoveryCode', 'passkey']), { message: 'Give exactly one of code, recoveryCode, passkey.', path: ['code'] });

export const TotpEnrolmentSchema = z.object({
  /** Base32 secret for manual entry; shown once. */
  secret: z.string(),
  /** `otpauth://totp/…` for a QR code. */
  otpauthUri: z.string(),
});

export const RecoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });

/** AUTH-1 when the account has two-factor sign-in on and the device is not trusted. */
export const MfaRequiredSchema = z.object({ mfaRequired: z.literal(true), mfaToken: z.string() });

export const PasskeySchema = z.object({ id: IdSchema, name: z.string(), createdAt: DateTimeSchema, lastUsedAt: DateTimeSchema.nullable() });

export const SecurityOverviewSchema = z.object({
  totp: z.object({ enabled: z.boolean(), enabledAt: DateTimeSchema.nullable() }),
  passkeys: z.array(PasskeySchema),
  recoveryCodesLeft: z.number().int().nonnegative(),
});

export const PasskeyNameSchema = z.string().trim().min(1).max(64);
export const RegisterPasskeyBodySchema = z.object({ credential: RegistrationCredentialSchema, name: PasskeyNameSchema.optional() });
export const RenamePasskeyBodySchema = z.object({ name: PasskeyNameSchema });
export const PasskeyOptionsBodySchema = z
  .object({ mfaToken: z.string().min(1).max(200).optional() })
  .optional()
  .nullable();
export const PasskeyLoginBodySchema = z.object({ credential: AssertionCredentialSchema, deviceInfo: DeviceInfoSchema.optional().nullable() });

/** WebAuthn options as `navigator.credentials` JSON parsers take them (`PublicKeyCredential.parse…OptionsFromJSON`). */
export const WebAuthnOptionsSchema = z.looseObject({ challenge: z.string() });

import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { AvailabilityResultSchema, DeviceInfoSchema, RegisterResultSchema, ResendResultSchema } from '../../records/auth.js';
import { MessageResponseSchema } from '../../records/common.js';

/** Trimmed, lower-cased, ≤ 254 (R13). */
export const IdentityEmailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Must be a valid e-mail address.' }))
  .transform((e) => e.toLowerCase());

/** Whatever the client sends is the password (never trimmed); the length rule is WEAK_PASSWORD's (R13). */
export const IdentityPasswordSchema = z.string().min(1).max(1024);

/** One-time tokens are 43 URL-safe characters; anything far off is not worth a lookup. */
export const IdentityOneTimeTokenSchema = z.string().trim().min(1).max(200);

const AccountRegisterBodySchema = z.object({
  email: IdentityEmailSchema,
  displayName: z.string().trim().min(1).max(50),
  username: z.string().trim().toLowerCase().max(30).optional().nullable(),
  password: IdentityPasswordSchema,
  dateOfBirth: z.iso.date({ message: 'Must be a date YYYY-MM-DD.' }),
  gender: z.string().trim().max(50).optional().nullable(),
  city: z.string().trim().max(100).optional().nullable(),
  country: z.string().trim().max(100).optional().nullable(),
  captchaToken: z.string().max(4096).optional().nullable(),
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});
export type AccountRegisterBody = z.infer<typeof AccountRegisterBodySchema>;

const AccountCheckUserBodySchema = z
  .object({
    email: z.string().trim().max(254).optional().nullable(),
    username: z.string().trim().toLowerCase().max(100).optional().nullable(),
  })
  .refine((b) => Boolean(b.email) || Boolean(b.username), { message: 'Give an email or a username.', path: ['email'] });
export type AccountCheckUserBody = z.infer<typeof AccountCheckUserBodySchema>;

const verifyEmailBody = z.object({ token: IdentityOneTimeTokenSchema });

const resendBody = z.object({ email: IdentityEmailSchema, deviceInfo: DeviceInfoSchema.optional().nullable() });

/** The operations of identity's accounts module (services/identity/src/modules/accounts): contract row, input and output. */
export const IDENTITY_ACCOUNTS = {
  'AUTH-5': {
    method: 'POST',
    path: '/auth/register/local',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Register with email and password',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'WEAK_PASSWORD', 'CAPTCHA_FAILED', 'EMAIL_TAKEN', 'USERNAME_TAKEN'],

    body: AccountRegisterBodySchema,
    response: { 201: RegisterResultSchema },
  },
  'AUTH-6': {
    method: 'POST',
    path: '/auth/verify-email',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Verify email',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_TOKEN', 'ALREADY_VERIFIED'],

    body: verifyEmailBody,
    response: { 200: MessageResponseSchema },
  },
  'AUTH-7': {
    method: 'POST',
    path: '/auth/resend-verification',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Resend verification email',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'RESEND_COOLDOWN'],

    body: resendBody,
    response: { 200: ResendResultSchema },
  },
  'AUTH-15': {
    method: 'POST',
    path: '/auth/check-user',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Check email or profile URL availability',
    deprecated: true,
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST'],

    body: AccountCheckUserBodySchema,
    response: { 200: AvailabilityResultSchema },
  },
} satisfies Operations;

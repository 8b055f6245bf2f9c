import { z } from 'zod';
import { DeviceInfoSchema } from '@msp/contracts';

const IdToken = z.string().min(10).max(8192);

export const OAuthExchangeBodySchema = z.object({
  /** A provider authorization code, a provider ID token, or an AUTH-11 one-time code (`otc_…`). */
  authTokenDto: z.string().trim().min(1).max(8192),
  redirectUri: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .nullable(),
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

export const GoogleLoginBodySchema = z.object({
  accessToken: z.string().max(8192).optional().nullable(),
  idToken: IdToken,
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

export const GoogleRegisterBodySchema = z.object({
  idToken: IdToken,
  displayName: z.string().trim().min(1).max(50).optional().nullable(),
  username: z.string().trim().toLowerCase().max(30).optional().nullable(),
  city: z.string().trim().max(100).optional().nullable(),
  country: z.string().trim().max(100).optional().nullable(),
  captchaToken: z.string().max(4096).optional().nullable(),
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

/** A web-app path: starts with one "/", no scheme or host (no open redirect). */
export const AuthorizeQuerySchema = z.object({
  returnTo: z
    .string()
    .max(500)
    .regex(/^\/(?![/\\])[^\s\\]*$/, 'Must be a path of the web app, like /settings.')
    .optional(),
});

export const CallbackQuerySchema = z
  .object({
    code: z.string().min(1).max(4096).optional(),
    state: z.string().min(1).max(200),
    error: z.string().max(200).optional(),
  })
  .refine((q) => q.code !== undefined || q.error !== undefined, { message: 'Give code or error.', path: ['code'] });

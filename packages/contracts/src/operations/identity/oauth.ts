import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { DeviceInfoSchema, LoginResponseSchema, RegisterResultSchema } from '../../records/auth.js';

const IdToken = z.string().min(10).max(8192);

const oauthExchangeBody = z.object({
  /** A provider authorization code, a provider ID token, or an AUTH-11 one-time code (`otc_…`). */
  authTokenDto: z.string().trim().min(1).max(8192),
  redirectUri: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .nullable(),
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

const googleLoginBody = z.object({
  accessToken: z.string().max(8192).optional().nullable(),
  idToken: IdToken,
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

const googleRegisterBody = z.object({
  idToken: IdToken,
  displayName: z.string().trim().min(1).max(50).optional().nullable(),
  username: z.string().trim().toLowerCase().max(30).optional().nullable(),
  city: z.string().trim().max(100).optional().nullable(),
  country: z.string().trim().max(100).optional().nullable(),
  captchaToken: z.string().max(4096).optional().nullable(),
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

/** A web-app path: starts with one "/", no scheme or host (no open redirect). */
const authorizeQuery = z.object({
  returnTo: z
    .string()
    .max(500)
    .regex(/^\/(?![/\\])[^\s\\]*$/, 'Must be a path of the web app, like /settings.')
    .optional(),
});

const callbackQuery = z
  .object({
    code: z.string().min(1).max(4096).optional(),
    state: z.string().min(1).max(200),
    error: z.string().max(200).optional(),
  })
  .refine((q) => q.code !== undefined || q.error !== undefined, { message: 'Give code or error.', path: ['code'] });

/** The operations of identity's oauth module (services/identity/src/modules/oauth): contract row, input and output. */
export const IDENTITY_OAUTH = {
  'AUTH-10': {
    method: 'GET',
    path: '/oauth2/authorization/google',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Trigger identity-provider login',
    errors: ['VALIDATION_FAILED', 'PROVIDER_ERROR'],

    querystring: authorizeQuery,
  },
  'AUTH-11': {
    method: 'GET',
    path: '/login/oauth2/code/google',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Identity-provider callback (internal)',
    errors: ['VALIDATION_FAILED'],

    querystring: callbackQuery,
  },
  'AUTH-12': {
    method: 'POST',
    path: '/auth/oauth/google',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Exchange an oauth token with the service',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_TOKEN', 'INVALID_IDP_TOKEN', 'ACCOUNT_BANNED', 'ACCOUNT_SUSPENDED', 'PROVIDER_ERROR'],

    body: oauthExchangeBody,
    response: { 200: LoginResponseSchema },
  },
  'AUTH-13': {
    method: 'POST',
    path: '/auth/login/google',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Login with an identity provider',
    deprecated: true,
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_IDP_TOKEN', 'ACCOUNT_BANNED', 'ACCOUNT_SUSPENDED', 'PROVIDER_ERROR'],

    body: googleLoginBody,
    response: { 200: LoginResponseSchema },
  },
  'AUTH-14': {
    method: 'POST',
    path: '/auth/register/google',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Register with an identity provider',
    deprecated: true,
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'CAPTCHA_FAILED', 'INVALID_IDP_TOKEN', 'EMAIL_TAKEN', 'USERNAME_TAKEN', 'PROVIDER_ERROR'],

    body: googleRegisterBody,
    response: { 201: RegisterResultSchema },
  },
} satisfies Operations;

import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { AdminLoginResponseSchema, DeviceInfoSchema, LoginResponseSchema } from '../../records/auth.js';
import { MessageResponseSchema } from '../../records/common.js';
import { IdentityEmailSchema, IdentityPasswordSchema } from './accounts.js';

const loginBody = z.object({
  email: IdentityEmailSchema,
  password: IdentityPasswordSchema,
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

/** AUTH-2 / AUTH-3 body: optional; a missing body is the same as `{}`. */
const refreshBody = z
  .object({ refreshToken: z.string().min(1).max(200).optional().nullable() })
  .optional()
  .nullable();

/** How a client asks for its refresh token (AUTH-1, AUTH-2, MFA-4, MFA-12: body or cookie). */
export const RefreshDeliveryHeadersSchema = z.object({ 'x-refresh-token-delivery': z.string().max(20).optional() });
const refreshDelivery = RefreshDeliveryHeadersSchema;

/** The operations of identity's sessions module (services/identity/src/modules/sessions): contract row, input and output. */
export const IDENTITY_SESSIONS = {
  'AUTH-1': {
    method: 'POST',
    path: '/auth/login/local',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Login with email and password',
    errors: [
      'VALIDATION_FAILED',
      'MALFORMED_REQUEST',
      'INVALID_CREDENTIALS',
      'EMAIL_NOT_VERIFIED',
      'ACCOUNT_BANNED',
      'ACCOUNT_SUSPENDED',
      'ACCOUNT_PENDING_DELETION',
    ],

    headers: refreshDelivery,
    body: loginBody,
    // With two-factor sign-in on: `{mfaRequired: true, mfaToken}`, no cookie; MFA-4 completes it.
    response: { 200: z.union([LoginResponseSchema, z.object({ mfaRequired: z.literal(true), mfaToken: z.string() })]) },
  },
  'AUTH-2': {
    method: 'POST',
    path: '/auth/refreshtoken',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Refresh access token',
    errors: ['INVALID_REFRESH_TOKEN', 'REFRESH_TOKEN_REUSED', 'ACCOUNT_BANNED', 'ACCOUNT_SUSPENDED', 'ACCOUNT_PENDING_DELETION'],

    headers: refreshDelivery,
    body: refreshBody,
    response: { 200: LoginResponseSchema },
  },
  'AUTH-3': {
    method: 'POST',
    path: '/auth/logout',
    auth: 'optional',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Logout current session',
    errors: ['UNAUTHORIZED'],

    // AUTH, SEC, MFA: account security is the user's own business, never an app's.
    scope: 'closed',

    body: refreshBody,
    response: { 200: MessageResponseSchema },
  },
  'AUTH-4': {
    method: 'POST',
    path: '/auth/logout-all',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Logout from all active sessions',
    errors: ['UNAUTHORIZED'],
    scope: 'closed',
  },
  'MOD-1': {
    method: 'POST',
    path: '/admin/login',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Admin login',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_CREDENTIALS'],

    body: loginBody,
    response: { 200: AdminLoginResponseSchema },
  },
} satisfies Operations;

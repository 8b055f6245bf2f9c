import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { MessageResponseSchema } from '../../records/common.js';
import { IdentityEmailSchema, IdentityOneTimeTokenSchema, IdentityPasswordSchema } from './accounts.js';

const forgotPasswordBody = z.object({ email: IdentityEmailSchema });

const resetPasswordBody = z.object({
  token: IdentityOneTimeTokenSchema,
  newPassword: IdentityPasswordSchema,
  logoutAll: z.boolean().optional().default(true),
});

const newEmailBody = z.object({ newEmail: IdentityEmailSchema });

/** SEC-1: `newEmail` in the body or, alternatively, in the query. */
const optionalNewEmailBody = z.object({ newEmail: IdentityEmailSchema.optional() }).optional().nullable();
const newEmailQuery = z.object({ newEmail: IdentityEmailSchema.optional() });

const changePasswordBody = z.object({
  currentPassword: z.string().max(1024).optional().nullable(),
  newPassword: IdentityPasswordSchema,
});

const verifyEmailChangeQuery = z.object({ token: IdentityOneTimeTokenSchema.optional() });
const verifyEmailChangeBody = z.object({ token: IdentityOneTimeTokenSchema.optional() }).optional().nullable();

const message = { 200: MessageResponseSchema };

/** The operations of identity's security module (services/identity/src/modules/security): contract row, input and output. */
export const IDENTITY_SECURITY = {
  'AUTH-8': {
    method: 'POST',
    path: '/auth/forgot-password',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Start password recovery',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST'],

    body: forgotPasswordBody,
    response: message,
  },
  'AUTH-9': {
    method: 'POST',
    path: '/auth/reset-password',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Reset password using token',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_TOKEN', 'WEAK_PASSWORD'],

    body: resetPasswordBody,
    response: message,
  },
  'SEC-1': {
    method: 'PATCH',
    path: '/users/me/email',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Change current user email',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'EMAIL_TAKEN'],

    querystring: newEmailQuery,
    body: optionalNewEmailBody,
    response: message,
  },
  'USR-12': {
    method: 'PATCH',
    path: '/users/me/email/start',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Start email change',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'EMAIL_TAKEN'],
    scope: 'closed',

    body: newEmailBody,
    response: message,
  },
  'SEC-2': {
    method: 'POST',
    path: '/users/me/add-new-email',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Add additional email',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'EMAIL_TAKEN'],

    body: newEmailBody,
    response: message,
  },
  'SEC-3': {
    method: 'POST',
    path: '/users/me/update-email-primary',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Set primary email',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'EMAIL_NOT_FOUND', 'EMAIL_UNVERIFIED'],

    body: newEmailBody,
    response: message,
  },
  'SEC-4': {
    method: 'PATCH',
    path: '/users/me/reset-password',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Change logged-in user password',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'WEAK_PASSWORD', 'UNAUTHORIZED', 'INVALID_CURRENT_PASSWORD'],

    body: changePasswordBody,
    response: message,
  },
  'USR-13': {
    method: 'POST',
    path: '/users/me/email/verify',
    auth: 'optional',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Verify email change',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_TOKEN', 'ALREADY_VERIFIED', 'EMAIL_TAKEN'],
    scope: 'closed',

    querystring: verifyEmailChangeQuery,
    body: verifyEmailChangeBody,
    response: message,
  },
} satisfies Operations;

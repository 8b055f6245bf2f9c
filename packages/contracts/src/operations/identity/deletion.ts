import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { MessageResponseSchema } from '../../records/common.js';
import { IdParamSchema } from '../../records/request.js';
import { IdentityEmailSchema, IdentityPasswordSchema } from './accounts.js';

/** ACC-3: the password, or for an account without one a current TOTP code or a recovery code. */
const DeleteAccountBodySchema = z
  .object({
    password: IdentityPasswordSchema.optional(),
    code: z
      .string()
      .trim()
      .regex(/^\d{6}$/, 'a 6-digit code')
      .optional(),
    recoveryCode: z.string().trim().min(1).max(100).optional(),
  })
  .strict();
export type DeleteAccountBody = z.infer<typeof DeleteAccountBodySchema>;

/** ACC-3 / ACC-5 answer: when the account is (or was) removed. */
const deletionScheduled = { 202: z.object({ deleteAt: z.iso.datetime({ offset: true }) }) };

/** ACC-4: the account's e-mail address and password, as for AUTH-1. */
const restoreAccountBody = z.object({ email: IdentityEmailSchema, password: IdentityPasswordSchema });

/** The operations of identity's deletion module (services/identity/src/modules/deletion): contract row, input and output. */
export const IDENTITY_DELETION = {
  'ACC-3': {
    method: 'DELETE',
    path: '/users/me',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Delete my account (after a grace period)',
    // ACC-3…5: account deletion (docs/account-control.md "Deletion").
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'INVALID_CURRENT_PASSWORD', 'INVALID_MFA_CODE', 'RATE_LIMITED'],
    scope: 'closed',
    description:
      'Locks the account at once (every session and app token ends; its content is hidden) and removes it when the grace ' +
      '(ACCOUNT_DELETION_GRACE, 30 days by default) has passed. Proof: `password`, or for an account without one a current ' +
      'two-factor `code` or a `recoveryCode`. ACC-4 restores the account inside the grace.',
    body: DeleteAccountBodySchema,
    response: deletionScheduled,
  },
  'ACC-4': {
    method: 'POST',
    path: '/users/me/restore',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Restore my account during the deletion grace period',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_CREDENTIALS', 'RESOURCE_NOT_FOUND', 'RATE_LIMITED'],
    description:
      'The e-mail address and password of an account pending deletion (AUTH-1 answers it 403 ACCOUNT_PENDING_DELETION). ' +
      'Throttled like AUTH-1. After the grace, or without a pending deletion: 404 RESOURCE_NOT_FOUND. The sessions ended by ' +
      'ACC-3 stay ended: log in again.',
    body: restoreAccountBody,
    response: { 200: MessageResponseSchema },
  },
  'ACC-5': {
    method: 'DELETE',
    path: '/admin/users/{userId}',
    auth: 'admin',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Delete a user at once (admin only)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN', 'USER_NOT_FOUND'],
    description: 'No grace: the account is locked and removed across the fleet at once. Admin accounts: 403; unknown or already deleted: 404.',
    params: IdParamSchema('userId'),
    response: deletionScheduled,
  },
} satisfies Operations;

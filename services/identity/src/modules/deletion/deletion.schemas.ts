import { z } from 'zod';
import { EmailSchema, PasswordSchema } from '../accounts/accounts.schemas.js';

/** ACC-3: the password, or for an account without one a current TOTP code or a recovery code. */
export const DeleteAccountBodySchema = z
  .object({
    password: PasswordSchema.optional(),
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
export const DeletionScheduledSchema = z.object({ deleteAt: z.iso.datetime({ offset: true }) });

/** ACC-4: the account's e-mail address and password, as for AUTH-1. */
export const RestoreAccountBodySchema = z.object({ email: EmailSchema, password: PasswordSchema });

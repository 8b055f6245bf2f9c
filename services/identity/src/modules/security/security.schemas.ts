import { z } from 'zod';
import { EmailSchema, OneTimeTokenSchema, PasswordSchema } from '../accounts/accounts.schemas.js';

export const ForgotPasswordBodySchema = z.object({ email: EmailSchema });

export const ResetPasswordBodySchema = z.object({
  token: OneTimeTokenSchema,
  newPassword: PasswordSchema,
  logoutAll: z.boolean().optional().default(true),
});

export const NewEmailBodySchema = z.object({ newEmail: EmailSchema });

/** SEC-1: `newEmail` in the body or, alternatively, in the query. */
export const OptionalNewEmailBodySchema = z.object({ newEmail: EmailSchema.optional() }).optional().nullable();
export const NewEmailQuerySchema = z.object({ newEmail: EmailSchema.optional() });

export const ChangePasswordBodySchema = z.object({
  currentPassword: z.string().max(1024).optional().nullable(),
  newPassword: PasswordSchema,
});

export const VerifyEmailChangeQuerySchema = z.object({ token: OneTimeTokenSchema.optional() });
export const VerifyEmailChangeBodySchema = z.object({ token: OneTimeTokenSchema.optional() }).optional().nullable();

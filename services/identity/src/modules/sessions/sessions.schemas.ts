import { z } from 'zod';
import { DeviceInfoSchema } from '@msp/contracts';
import { EmailSchema, PasswordSchema } from '../accounts/accounts.schemas.js';

export const LoginBodySchema = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});

/** AUTH-2 / AUTH-3 body: optional; a missing body is the same as `{}`. */
export const RefreshBodySchema = z
  .object({ refreshToken: z.string().min(1).max(200).optional().nullable() })
  .optional()
  .nullable();

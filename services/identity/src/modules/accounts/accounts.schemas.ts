import { z } from 'zod';
import { DeviceInfoSchema } from '@msp/contracts';

/** Trimmed, lower-cased, ≤ 254 (R13). */
export const EmailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Must be a valid e-mail address.' }))
  .transform((e) => e.toLowerCase());

/** Whatever the client sends is the password (never trimmed); the length rule is WEAK_PASSWORD's (R13). */
export const PasswordSchema = z.string().min(1).max(1024);

/** One-time tokens are 43 URL-safe characters; anything far off is not worth a lookup. */
export const OneTimeTokenSchema = z.string().trim().min(1).max(200);

export const RegisterBodySchema = z.object({
  email: EmailSchema,
  displayName: z.string().trim().min(1).max(50),
  username: z.string().trim().toLowerCase().max(30).optional().nullable(),
  password: PasswordSchema,
  dateOfBirth: z.iso.date({ message: 'Must be a date YYYY-MM-DD.' }),
  gender: z.string().trim().max(50).optional().nullable(),
  city: z.string().trim().max(100).optional().nullable(),
  country: z.string().trim().max(100).optional().nullable(),
  captchaToken: z.string().max(4096).optional().nullable(),
  deviceInfo: DeviceInfoSchema.optional().nullable(),
});
export type RegisterBody = z.infer<typeof RegisterBodySchema>;

export const CheckUserBodySchema = z
  .object({
    email: z.string().trim().max(254).optional().nullable(),
    username: z.string().trim().toLowerCase().max(100).optional().nullable(),
  })
  .refine((b) => Boolean(b.email) || Boolean(b.username), { message: 'Give an email or a username.', path: ['email'] });
export type CheckUserBody = z.infer<typeof CheckUserBodySchema>;

export const VerifyEmailBodySchema = z.object({ token: OneTimeTokenSchema });

export const ResendBodySchema = z.object({ email: EmailSchema, deviceInfo: DeviceInfoSchema.optional().nullable() });

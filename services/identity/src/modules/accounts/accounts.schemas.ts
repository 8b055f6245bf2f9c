import { z } from 'zod';
import { DeviceInfoSchema } from '@msp/contracts';

const email = z.string().trim().max(254).pipe(z.email({ message: 'Must be a valid e-mail address.' }));

export const RegisterBodySchema = z.object({
  email,
  displayName: z.string().trim().min(1).max(50),
  username: z.string().trim().toLowerCase().max(30).optional().nullable(),
  password: z.string().max(1024),
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

import { z } from 'zod';
import { DeviceInfoSchema } from '@msp/contracts';

/** "" and null both clear an optional text. */
const nullableText = (max: number) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), z.string().trim().max(max).nullable()).optional();

/** http/https URL ≤ 300; "" or null clears. */
const socialUrl = z
  .preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z
      .string()
      .trim()
      .max(300)
      .pipe(z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }))
      .nullable(),
  )
  .optional();

export const SocialLinksBodySchema = z
  .object({ instagram: socialUrl, twitter: socialUrl, website: socialUrl, supportLink: socialUrl })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one link.', path: ['instagram'] });
export type SocialLinksBody = z.infer<typeof SocialLinksBodySchema>;

export const UpdateProfileBodySchema = z.object({
  displayName: z.string().trim().min(1).max(50).optional(),
  bio: nullableText(500),
  city: nullableText(100),
  country: nullableText(100),
  favoriteGenres: z.array(z.string().trim().min(1).max(30)).max(10).nullable().optional(),
  socialLinks: z.object({ instagram: socialUrl, twitter: socialUrl, website: socialUrl, supportLink: socialUrl }).nullable().optional(),
});
export type UpdateProfileBody = z.infer<typeof UpdateProfileBodySchema>;

export const PrivacyBodySchema = z.object({ isPrivate: z.boolean().optional(), showHistory: z.boolean().optional() });

const TierValue = z.enum(['FREE', 'PRO']);
export const TierBodySchema = z
  .object({ newTier: TierValue.optional(), targetTier: TierValue.optional(), deviceInfo: DeviceInfoSchema.optional().nullable() })
  .refine((b) => b.newTier !== undefined || b.targetTier !== undefined, { message: 'Required.', path: ['newTier'] });

export const RoleBodySchema = z.object({ newRole: z.enum(['LISTENER', 'ARTIST']) });

export const PermalinkBodySchema = z.object({ permalink: z.string().trim().toLowerCase().min(1).max(100) });

/** USR-14 accepts an id or a username (R1: usernames are never all digits). */
export const UserRefParamsSchema = z.object({
  userId: z
    .string()
    .max(100)
    // A username always holds a letter (R1), so "1.5" or "-3" is neither form.
    .regex(/^(\d{1,15}|(?=.*[A-Za-z])[A-Za-z0-9._-]+)$/, 'Must be a user id or a username.')
    .refine((v) => !/^\d+$/.test(v) || Number(v) > 0, 'Must be a positive integer.'),
});

export const UsernameParamsSchema = z.object({ username: z.string().min(1).max(100) });

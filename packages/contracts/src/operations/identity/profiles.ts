import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { DeviceInfoSchema, TierChangeResultSchema } from '../../records/auth.js';
import { MeProfileSchema, PrivacySettingsSchema, PublicProfileSchema, SocialLinksSchema } from '../../records/users.js';

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

const SocialLinksBodySchema = z
  .object({ instagram: socialUrl, twitter: socialUrl, website: socialUrl, supportLink: socialUrl })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one link.', path: ['instagram'] });
export type SocialLinksBody = z.infer<typeof SocialLinksBodySchema>;

const UpdateProfileBodySchema = z.object({
  displayName: z.string().trim().min(1).max(50).optional(),
  bio: nullableText(500),
  city: nullableText(100),
  country: nullableText(100),
  favoriteGenres: z.array(z.string().trim().min(1).max(30)).max(10).nullable().optional(),
  socialLinks: z.object({ instagram: socialUrl, twitter: socialUrl, website: socialUrl, supportLink: socialUrl }).nullable().optional(),
});
export type UpdateProfileBody = z.infer<typeof UpdateProfileBodySchema>;

const PrivacyBodySchema = z.object({ isPrivate: z.boolean().optional(), showHistory: z.boolean().optional() });

const TierValue = z.enum(['FREE', 'PRO']);
const TierBodySchema = z
  .object({ newTier: TierValue.optional(), targetTier: TierValue.optional(), deviceInfo: DeviceInfoSchema.optional().nullable() })
  .refine((b) => b.newTier !== undefined || b.targetTier !== undefined, { message: 'Required.', path: ['newTier'] });

const RoleBodySchema = z.object({ newRole: z.enum(['LISTENER', 'ARTIST']) });

const PermalinkBodySchema = z.object({ permalink: z.string().trim().toLowerCase().min(1).max(100) });

/** USR-14 accepts an id or a username (R1: usernames are never all digits). */
const UserRefParamsSchema = z.object({
  userId: z
    .string()
    .max(100)
    // A username always holds a letter (R1), so "1.5" or "-3" is neither form.
    .regex(/^(\d{1,15}|(?=.*[A-Za-z])[A-Za-z0-9._-]+)$/, 'Must be a user id or a username.')
    .refine((v) => !/^\d+$/.test(v) || Number(v) > 0, 'Must be a positive integer.'),
});

const UsernameParamsSchema = z.object({ username: z.string().min(1).max(100) });

/** The operations of identity's profiles module (services/identity/src/modules/profiles): contract row, input and output. */
export const IDENTITY_PROFILES = {
  'USR-1': {
    method: 'GET',
    path: '/users/me',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Get current user profile',
    errors: ['UNAUTHORIZED'],
    scope: 'read',

    response: { 200: MeProfileSchema },
  },
  'USR-2': {
    method: 'PATCH',
    path: '/users/me',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update current user profile',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED'],
    scope: 'write',

    body: UpdateProfileBodySchema,
    response: { 200: MeProfileSchema },
  },
  'USR-3': {
    method: 'GET',
    path: '/users/me/privacy',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Get privacy settings (additional)',
    errors: ['UNAUTHORIZED'],
    scope: 'read',

    response: { 200: PrivacySettingsSchema },
  },
  'USR-4': {
    method: 'PATCH',
    path: '/users/me/privacy',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update privacy settings',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED'],
    scope: 'write',

    body: PrivacyBodySchema,
    response: { 200: PrivacySettingsSchema },
  },
  'USR-5': {
    method: 'PATCH',
    path: '/users/me/tier',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update account tier',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'PAYMENT_REQUIRED', 'SUBSCRIPTION_STATE_CONFLICT'],
    scope: 'closed',

    body: TierBodySchema,
    response: { 200: TierChangeResultSchema },
  },
  'USR-6': {
    method: 'PATCH',
    path: '/users/me/role',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update user role',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED'],
    scope: 'closed',

    body: RoleBodySchema,
    response: { 200: MeProfileSchema },
  },
  'USR-7': {
    method: 'PATCH',
    path: '/users/me/permalink',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update user permalink',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'USERNAME_TAKEN'],
    scope: 'write',

    body: PermalinkBodySchema,
    response: { 200: MeProfileSchema },
  },
  'USR-8': {
    method: 'PATCH',
    path: '/users/me/social-links',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update social links',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED'],
    scope: 'write',

    body: SocialLinksBodySchema,
    response: { 200: SocialLinksSchema },
  },
  'USR-14': {
    method: 'GET',
    path: '/users/{userId}',
    auth: 'optional',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Public profile by user id',
    errors: ['USER_NOT_FOUND'],
    scope: 'read',

    params: UserRefParamsSchema,
    response: { 200: PublicProfileSchema },
  },
  'USR-15': {
    method: 'GET',
    path: '/users/username/{username}',
    auth: 'optional',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Public profile by username',
    errors: ['USER_NOT_FOUND'],
    scope: 'read',

    params: UsernameParamsSchema,
    response: { 200: PublicProfileSchema },
  },
} satisfies Operations;

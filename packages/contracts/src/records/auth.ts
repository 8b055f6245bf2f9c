import { z } from 'zod';

import { DeviceTypeSchema, RoleSchema, TierSchema } from '../enums.js';
import { IdSchema } from './primitives.js';

/** Optional wherever accepted; the server then uses `{WEB, <User-Agent>, <User-Agent>}`. */
export const DeviceInfoSchema = z.object({
  deviceType: DeviceTypeSchema,
  fingerPrint: z.string().min(1).max(512),
  deviceName: z.string().min(1).max(200),
});
export type DeviceInfo = z.infer<typeof DeviceInfoSchema>;

export const LoginUserSchema = z.object({
  id: IdSchema,
  username: z.string(),
  displayName: z.string(),
  tier: TierSchema,
  role: RoleSchema,
  profileUrl: z.string(),
  avatarUrl: z.string().nullable(),
  /** True only on the first identity-provider login. */
  isNewUser: z.boolean(),
});
export type LoginUser = z.infer<typeof LoginUserSchema>;

export const LoginResponseSchema = z.object({
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  /** Seconds (1800). */
  expiresIn: z.number().int().positive(),
  user: LoginUserSchema,
  /** Absent unless the request carried `X-Refresh-Token-Delivery: body`. */
  refreshToken: z.string().optional(),
  refreshExpiresIn: z.number().int().positive().optional(),
});
export type LoginResponse = z.infer<typeof LoginResponseSchema>;

export const AdminLoginResponseSchema = z.object({
  accessToken: z.string(),
  expiresIn: z.number().int().positive(),
  adminUser: z.object({
    id: IdSchema,
    username: z.string(),
    displayName: z.string(),
    avatarUrl: z.string().nullable(),
  }),
});
export type AdminLoginResponse = z.infer<typeof AdminLoginResponseSchema>;

export const RegisterResultSchema = z.object({
  message: z.string(),
  userId: IdSchema,
  username: z.string(),
});
export type RegisterResult = z.infer<typeof RegisterResultSchema>;

export const ResendResultSchema = z.object({
  message: z.string(),
  /** Seconds until the next resend is allowed. */
  coolDown: z.number().int().nonnegative(),
});
export type ResendResult = z.infer<typeof ResendResultSchema>;

export const AvailabilityResultSchema = z.object({
  isAvailable: z.boolean(),
  message: z.string(),
  errorField: z.enum(['email', 'username']).nullable(),
});
export type AvailabilityResult = z.infer<typeof AvailabilityResultSchema>;

export const TierChangeResultSchema = z.object({
  tier: TierSchema,
  message: z.string(),
  accessToken: z.string(),
  expiresIn: z.number().int().positive(),
  /** New tokens carrying the new tier. */
  login: LoginResponseSchema,
});
export type TierChangeResult = z.infer<typeof TierChangeResultSchema>;

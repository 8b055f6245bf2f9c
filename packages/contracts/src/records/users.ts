import { z } from 'zod';

import { RoleSchema, TierSchema } from '../enums.js';
import { CountSchema, DateTimeSchema, IdSchema } from './primitives.js';

export const UserSummarySchema = z.object({
  id: IdSchema,
  username: z.string(),
  /** Falls back to the username, so never null. */
  displayName: z.string(),
  avatarUrl: z.string().nullable(),
  tier: TierSchema,
  /** False when anonymous or self. */
  isFollowing: z.boolean(),
  followerCount: CountSchema,
  /** Public FINISHED tracks only. */
  trackCount: CountSchema,
});
export type UserSummary = z.infer<typeof UserSummarySchema>;

/** What a service's copy of a user (its `user_summaries` table) holds to build a User summary. */
export interface UserSummarySource {
  userId: number;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  tier: string;
  followerCount: number;
  trackCount: number;
}

/** Prisma `select` for a UserSummarySource. */
export const userSummarySourceSelect = {
  userId: true,
  username: true,
  displayName: true,
  avatarUrl: true,
  tier: true,
  followerCount: true,
  trackCount: true,
} as const;

export function toUserSummary(row: UserSummarySource, isFollowing: boolean): UserSummary {
  return {
    id: row.userId,
    username: row.username,
    displayName: row.displayName || row.username,
    avatarUrl: row.avatarUrl,
    tier: row.tier === 'PRO' ? 'PRO' : 'FREE',
    isFollowing,
    followerCount: row.followerCount,
    trackCount: row.trackCount,
  };
}

export const SocialLinksSchema = z.object({
  instagram: z.string().nullable(),
  twitter: z.string().nullable(),
  website: z.string().nullable(),
  supportLink: z.string().nullable(),
});
export type SocialLinks = z.infer<typeof SocialLinksSchema>;

export const PrivacySettingsSchema = z.object({
  isPrivate: z.boolean(),
  showHistory: z.boolean(),
});
export type PrivacySettings = z.infer<typeof PrivacySettingsSchema>;

/** The `profile` object: a flattened mirror of the enclosing profile kept for older clients. */
export const ProfileDetailsSchema = z.object({
  bio: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  coverPhotoUrl: z.string().nullable(),
  favoriteGenres: z.array(z.string()),
  id: IdSchema,
  username: z.string(),
  displayName: z.string(),
  tier: TierSchema,
  /** Null in a Public profile. */
  email: z.string().nullable(),
  followerCount: CountSchema,
  followingCount: CountSchema,
  trackCount: CountSchema,
  isFollowing: z.boolean(),
  isFollowed: z.boolean(),
  isBlocked: z.boolean(),
  profilePic: z.string().nullable(),
  coverPic: z.string().nullable(),
  socialLinksDto: z.array(SocialLinksSchema).length(1),
});
export type ProfileDetails = z.infer<typeof ProfileDetailsSchema>;

export const ProfileStatsSchema = z.object({
  followersCount: CountSchema,
  followingCount: CountSchema,
  trackCount: CountSchema,
});
export type ProfileStats = z.infer<typeof ProfileStatsSchema>;

export const PublicProfileSchema = z.object({
  id: IdSchema,
  username: z.string(),
  displayName: z.string(),
  /** Caller follows this user. */
  isFollowing: z.boolean(),
  /** This user follows the caller. */
  isFollowed: z.boolean(),
  /** Caller has blocked this user. */
  isBlocked: z.boolean(),
  tier: TierSchema,
  profileUrl: z.string(),
  profile: ProfileDetailsSchema,
  socialLinks: SocialLinksSchema,
  stats: ProfileStatsSchema,
  privacySettings: PrivacySettingsSchema,
});
export type PublicProfile = z.infer<typeof PublicProfileSchema>;

export const AccountEmailSchema = z.object({
  email: z.string(),
  isPrimary: z.boolean(),
  isVerified: z.boolean(),
});
export type AccountEmail = z.infer<typeof AccountEmailSchema>;

/** Relations to oneself are always false. */
export const MeProfileSchema = PublicProfileSchema.extend({
  isFollowing: z.literal(false),
  isFollowed: z.literal(false),
  isBlocked: z.literal(false),
  email: z.string(),
  emailVerified: z.boolean(),
  emails: z.array(AccountEmailSchema),
  role: RoleSchema,
  /** False for identity-provider accounts until SEC-4 sets one. */
  hasPassword: z.boolean(),
  createdAt: DateTimeSchema,
});
export type MeProfile = z.infer<typeof MeProfileSchema>;

export const FollowResponseSchema = z.object({
  message: z.string(),
  /** State after the call. */
  isFollowing: z.boolean(),
  /** Of the target user. */
  followerCount: CountSchema,
});
export type FollowResponse = z.infer<typeof FollowResponseSchema>;

export const ImageUpdateResultSchema = z.object({
  profilePic: z.string().nullable(),
  coverPic: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  coverPhotoUrl: z.string().nullable(),
});
export type ImageUpdateResult = z.infer<typeof ImageUpdateResultSchema>;

export const BannedUserSchema = UserSummarySchema.extend({
  isBanned: z.boolean(),
  banReason: z.string().nullable(),
  bannedAt: DateTimeSchema.nullable(),
  suspendedUntil: DateTimeSchema.nullable(),
});
export type BannedUser = z.infer<typeof BannedUserSchema>;

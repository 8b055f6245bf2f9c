import type { MeProfile, PublicProfile } from '@msp/contracts';
import type { Links } from '../../links.js';
import type { ProfileRow } from './profiles.repository.js';

export interface ViewerFlags {
  isFollowing: boolean;
  isFollowed: boolean;
  isBlocked: boolean;
}

const NO_FLAGS: ViewerFlags = { isFollowing: false, isFollowed: false, isBlocked: false };

export function socialLinksOf(row: Pick<ProfileRow, 'instagram' | 'twitter' | 'website' | 'supportLink'>) {
  return { instagram: row.instagram, twitter: row.twitter, website: row.website, supportLink: row.supportLink };
}

export function privacyOf(row: Pick<ProfileRow, 'isPrivate' | 'showHistory'>) {
  return { isPrivate: row.isPrivate, showHistory: row.showHistory };
}

/** The PublicProfile record: `profile` mirrors the enclosing fields for older clients. */
export function toPublicProfile(row: ProfileRow, flags: ViewerFlags, links: Links, email: string | null = null): PublicProfile {
  const avatarUrl = links.mediaUrl(row.avatarKey);
  const coverPhotoUrl = links.mediaUrl(row.coverKey);
  const socialLinks = socialLinksOf(row);
  return {
    id: row.id,
    username: row.username,
    displayName: row.displayName || row.username,
    isFollowing: flags.isFollowing,
    isFollowed: flags.isFollowed,
    isBlocked: flags.isBlocked,
    tier: row.tier,
    profileUrl: links.profileUrl(row.username),
    profile: {
      bio: row.bio,
      city: row.city,
      country: row.country,
      avatarUrl,
      coverPhotoUrl,
      favoriteGenres: row.favoriteGenres,
      id: row.id,
      username: row.username,
      displayName: row.displayName || row.username,
      tier: row.tier,
      email,
      followerCount: row.followerCount,
      followingCount: row.followingCount,
      trackCount: row.trackCount,
      isFollowing: flags.isFollowing,
      isFollowed: flags.isFollowed,
      isBlocked: flags.isBlocked,
      profilePic: avatarUrl,
      coverPic: coverPhotoUrl,
      socialLinksDto: [socialLinks],
    },
    socialLinks,
    stats: { followersCount: row.followerCount, followingCount: row.followingCount, trackCount: row.trackCount },
    privacySettings: privacyOf(row),
  };
}

export function toMeProfile(row: ProfileRow, links: Links): MeProfile {
  const base = toPublicProfile(row, NO_FLAGS, links, row.email);
  return {
    ...base,
    isFollowing: false,
    isFollowed: false,
    isBlocked: false,
    email: row.email,
    emailVerified: row.emailVerified,
    emails: row.emails.map((e) => ({ email: e.email, isPrimary: e.email === row.email, isVerified: e.isVerified })),
    role: row.role,
    hasPassword: row.passwordHash !== null,
    createdAt: row.createdAt.toISOString(),
  };
}

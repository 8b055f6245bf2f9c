import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/** What other services keep of a user (their user-summary copies are built from it). */
export const UserSnapshotSchema = z.object({
  userId: z.number().int().positive(),
  username: z.string(),
  displayName: z.string(),
  avatarUrl: z.string().nullable(),
  tier: z.enum(['FREE', 'PRO']),
  role: z.enum(['LISTENER', 'ARTIST', 'ADMIN']),
  isPrivate: z.boolean(),
  /** R8: false means plays are not recorded in the listening history (catalog). Added later: optional. */
  showHistory: z.boolean().optional(),
});
export type UserSnapshot = z.infer<typeof UserSnapshotSchema>;

export const UserRegistered = defineEvent('identity.user.registered.v1', UserSnapshotSchema.extend({ createdAt: z.string() }));

/** Any change of the snapshot fields (profile, username, avatar, role, privacy, showHistory). */
export const UserUpdated = defineEvent('identity.user.updated.v1', UserSnapshotSchema);

export const UserTierChanged = defineEvent('identity.user.tier-changed.v1', z.object({ userId: z.number().int().positive(), tier: z.enum(['FREE', 'PRO']) }));

export const UserBanned = defineEvent(
  'identity.user.banned.v1',
  z.object({ userId: z.number().int().positive(), reason: z.string().nullable(), bannedAt: z.string() }),
);

export const UserUnbanned = defineEvent('identity.user.unbanned.v1', z.object({ userId: z.number().int().positive() }));

export const UserSuspended = defineEvent(
  'identity.user.suspended.v1',
  z.object({ userId: z.number().int().positive(), suspendedUntil: z.string().nullable() }),
);

export const UserDeleted = defineEvent('identity.user.deleted.v1', z.object({ userId: z.number().int().positive() }));

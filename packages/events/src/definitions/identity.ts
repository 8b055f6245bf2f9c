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

/**
 * ACC-3 / ACC-5 (docs/account-control.md): the account is locked at once and its content hidden as
 * for a ban; `deleteAt` is when the grace ends (`UserDeleted` follows then). An admin deletion has
 * `deleteAt` = now and is followed by `UserDeleted` at once.
 */
export const UserDeletionScheduled = defineEvent(
  'identity.user.deletion-scheduled.v1',
  z.object({ userId: z.number().int().positive(), deleteAt: z.string() }),
);

/** ACC-4: the user restored the account inside the grace; content shows again (unless banned). */
export const UserDeletionCancelled = defineEvent('identity.user.deletion-cancelled.v1', z.object({ userId: z.number().int().positive() }));

/**
 * ACC-1 (docs/account-control.md "Export"): every service holding the user's data writes its part of
 * the export and answers with its `<service>.user.export-part-ready.v1` (definitions/account-export.ts).
 */
export const UserExportRequested = defineEvent(
  'identity.user.export-requested.v1',
  z.object({ exportId: z.uuid(), userId: z.number().int().positive(), requestedAt: z.string() }),
);

/** The export's ZIP is stored (ACC-2 hands out its signed URL until `expiresAt`): notification tells the user. */
export const UserExportReady = defineEvent(
  'identity.user.export-ready.v1',
  z.object({ exportId: z.uuid(), userId: z.number().int().positive(), expiresAt: z.string() }),
);

/**
 * The export no longer needs its parts (READY: the ZIP holds them; FAILED; CANCELLED by an account
 * deletion): every service removes its `exports/{exportId}/` objects.
 */
export const UserExportClosed = defineEvent(
  'identity.user.export-closed.v1',
  z.object({ exportId: z.uuid(), userId: z.number().int().positive(), status: z.enum(['READY', 'FAILED', 'CANCELLED']) }),
);

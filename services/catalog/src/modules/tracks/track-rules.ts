import type { Caller } from '@msp/http';

/**
 * The pure rules behind track reads and uploads (R2, R3, R7, R12, R14): no database, no I/O, so
 * they are unit-tested with plain objects (`test/unit/track-rules.test.ts`).
 */

export function isOwnerOrAdmin(row: { artistId: number }, caller: Caller | null): boolean {
  return !!caller && (caller.userId === row.artistId || caller.role === 'ADMIN');
}

/** What visibility needs of a track and its artist (TrackReadsRepository reads it in one statement). */
export interface VisibilityFacts {
  artistId: number;
  deletedAt: Date | null;
  isPrivate: boolean;
  /** Held back by duplicate detection (docs/fingerprints.md): only its artist and admins see it. */
  heldBack: boolean;
  state: string;
  /** The artist is deleted or banned (R14). */
  artistHidden: boolean;
  /** A block separates the caller and the artist, either way (R7). */
  blocked: boolean;
}

/**
 * R2 (+ R7, R14): a caller sees a track when it is not deleted, and they are its artist or an
 * admin, or it is public and FINISHED, its artist neither deleted nor banned, and no block
 * separates them.
 */
export function canSee(row: VisibilityFacts, caller: Caller | null): boolean {
  if (row.deletedAt) return false;
  if (isOwnerOrAdmin(row, caller)) return true;
  return !row.isPrivate && !row.heldBack && row.state === 'FINISHED' && !row.artistHidden && !row.blocked;
}

/** Who holds a media URL (R4 grants): the artist or an admin, a viewer of a public track, a secret-token holder. */
export type Grant = 'o' | 'v' | 't';

/**
 * R3: which renditions a grant opens. The artist and admins get everything; others by the access
 * level (PLAYABLE: full stream and preview; PREVIEW: the preview only; BLOCKED: none). Nothing
 * before the track is FINISHED with its stream stored.
 */
export function renditionsFor(row: { state: string; access: string; progressiveKey: string | null }, grant: Grant): { full: boolean; preview: boolean } {
  if (row.state !== 'FINISHED' || !row.progressiveKey) return { full: false, preview: false };
  const full = grant === 'o' || row.access === 'PLAYABLE';
  return { full, preview: full || row.access === 'PREVIEW' };
}

/** R12: a FREE account may own `quota` tracks at once (every non-deleted track, any state); PRO has no quota. */
export function overQuota(tier: string | null | undefined, owned: number, quota: number): boolean {
  return tier !== 'PRO' && owned >= quota;
}

export function quotaMessage(quota: number): string {
  return `You are out of free tracks: FREE accounts may own ${quota} tracks. Delete one or go Pro.`;
}

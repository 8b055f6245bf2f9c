import type { UserSnapshot } from '@msp/events';
import type { Links } from '../../links.js';
import type { SnapshotRow } from './accounts.repository.js';

/** The identity.user.* snapshot of a user row (what other services copy). */
export function snapshotOf(row: SnapshotRow, links: Links): UserSnapshot {
  return {
    userId: row.id,
    username: row.username,
    displayName: row.displayName,
    avatarUrl: links.mediaUrl(row.avatarKey),
    tier: row.tier,
    role: row.role,
    isPrivate: row.isPrivate,
    showHistory: row.showHistory,
  };
}

/**
 * What an app's access token (docs/developer-platform.md) may call: the scope each operation of
 * `ROUTES` needs. The gateway checks it on every request that carries an app token (a token with
 * `azp`), on the proxy route and the fast lane alike; a user's own session token is not affected.
 *
 * - `read`: reading (always granted with any app token);
 * - `write`: uploading and editing the user's own content (tracks, playlists, profile);
 * - `engage`: likes, reposts, follows, blocks, comments, reports;
 * - `messages`: direct messages (reading them too);
 * - `webhooks`: reserved for app webhooks (no operation needs it yet).
 *
 * An operation not listed here, or listed as `closed`, is never reachable with an app token (403
 * INSUFFICIENT_SCOPE): account security, sessions, two-factor, e-mail, role and tier, billing,
 * device tokens, the app registry itself and every admin route. Operations with auth `none` ignore
 * tokens entirely and need no entry.
 */
export const APP_SCOPES = ['read', 'write', 'engage', 'messages', 'webhooks'] as const;
export type AppScope = (typeof APP_SCOPES)[number];
export type RouteScope = AppScope | 'closed';

/** The scope granted when an authorization request names none, and always added to a grant. */
export const DEFAULT_APP_SCOPE: AppScope = 'read';

export const ROUTE_SCOPES: Readonly<Record<string, RouteScope>> = {
  // AUTH, SEC, MFA: account security is the user's own business, never an app's.
  'AUTH-3': 'closed',
  'AUTH-4': 'closed',
  // ACC: exporting or deleting the account is the user's own business, never an app's.
  'ACC-1': 'closed',
  'ACC-2': 'closed',
  'ACC-3': 'closed',
  // USR
  'USR-1': 'read',
  'USR-2': 'write',
  'USR-3': 'read',
  'USR-4': 'write',
  'USR-5': 'closed',
  'USR-6': 'closed',
  'USR-7': 'write',
  'USR-8': 'write',
  'USR-9': 'write',
  'USR-10': 'write',
  'USR-11': 'write',
  'USR-12': 'closed',
  'USR-13': 'closed',
  'USR-14': 'read',
  'USR-15': 'read',
  'USR-16': 'read',
  'USR-17': 'read',
  'USR-18': 'read',
  'USR-19': 'read',
  'USR-20': 'read',
  'USR-21': 'read',
  'USR-22': 'read',
  // FOL, BLK
  'FOL-1': 'engage',
  'FOL-2': 'engage',
  'FOL-3': 'read',
  'FOL-4': 'read',
  'BLK-1': 'engage',
  'BLK-2': 'engage',
  'BLK-3': 'read',
  // TRK
  'TRK-1': 'write',
  'TRK-2': 'write',
  'TRK-3': 'read',
  'TRK-4': 'write',
  'TRK-5': 'write',
  'TRK-6': 'read',
  'TRK-7': 'read',
  'TRK-8': 'write',
  'TRK-9': 'write',
  'TRK-10': 'write',
  'TRK-11': 'read',
  'TRK-12': 'write',
  'TRK-13': 'read',
  'TRK-14': 'read',
  'TRK-15': 'read',
  'TRK-16': 'read',
  // A player reporting what it plays.
  'TRK-17': 'read',
  'TRK-18': 'read',
  'TRK-19': 'read',
  'TRK-21': 'read',
  'TRK-22': 'read',
  'TRK-23': 'read',
  // SND, INS: the artist's own sound report and insights, and a player's listening progress.
  'SND-1': 'read',
  'INS-1': 'read',
  'INS-2': 'read',
  'INS-4': 'read',
  // MOD: reporting is engagement; everything else is admin only.
  'MOD-2': 'engage',
  'MOD-3': 'engage',
  // PLS
  'PLS-1': 'read',
  'PLS-2': 'read',
  'PLS-3': 'write',
  'PLS-4': 'read',
  'PLS-5': 'write',
  'PLS-6': 'write',
  'PLS-7': 'write',
  'PLS-8': 'write',
  'PLS-9': 'write',
  'PLS-10': 'write',
  'PLS-11': 'read',
  'PLS-12': 'read',
  'PLS-13': 'write',
  'PLS-14': 'read',
  'PLS-15': 'read',
  'PLS-16': 'read',
  'PLS-17': 'read',
  // ENG
  'ENG-1': 'engage',
  'ENG-2': 'engage',
  'ENG-3': 'read',
  'ENG-4': 'engage',
  'ENG-5': 'engage',
  'ENG-6': 'read',
  'ENG-7': 'engage',
  'ENG-8': 'engage',
  'ENG-9': 'read',
  'ENG-10': 'engage',
  'ENG-11': 'engage',
  'ENG-12': 'read',
  'ENG-13': 'engage',
  'ENG-14': 'read',
  'ENG-15': 'engage',
  'ENG-16': 'engage',
  'ENG-17': 'read',
  'ENG-18': 'read',
  'ENG-19': 'read',
  'ENG-20': 'read',
  // DSC
  'DSC-1': 'read',
  'DSC-2': 'read',
  'DSC-3': 'read',
  'DSC-4': 'read',
  'DSC-5': 'read',
  'DSC-6': 'read',
  'DSC-7': 'read',
  // MSG
  'MSG-1': 'messages',
  'MSG-2': 'messages',
  'MSG-3': 'messages',
  'MSG-4': 'messages',
  // NOT: reading and settings; device tokens (push to the user's own devices) stay closed.
  'NOT-1': 'read',
  'NOT-2': 'read',
  'NOT-3': 'read',
  'NOT-4': 'write',
  'NOT-5': 'read',
  'NOT-6': 'write',
  'NOT-7': 'closed',
  'NOT-8': 'closed',
};

/** The scope an operation needs from an app token; `closed` when apps may never call it. */
export function requiredScope(operationId: string): RouteScope {
  return Object.hasOwn(ROUTE_SCOPES, operationId) ? (ROUTE_SCOPES[operationId] ?? 'closed') : 'closed';
}

/** Whether a grant's scopes (space-separated, as in the token's `scope` claim) reach the operation. */
export function scopeAllows(operationId: string, granted: ReadonlySet<string>): boolean {
  const needed = requiredScope(operationId);
  if (needed === 'closed') return false;
  return needed === DEFAULT_APP_SCOPE || granted.has(needed);
}

import type { AppScope, RouteScope } from './route-types.js';
import { ROUTES } from './routes.js';

/**
 * What an app's access token (docs/developer-platform.md) may call: the scope each operation of
 * `ROUTES` needs (its row's `scope` in routes.ts). The gateway checks it on every request that carries an app token (a token with
 * `azp`), on the proxy route and the fast lane alike; a user's own session token is not affected.
 *
 * - `read`: reading (always granted with any app token);
 * - `write`: uploading and editing the user's own content (tracks, playlists, profile);
 * - `engage`: likes, reposts, follows, blocks, comments, reports;
 * - `messages`: direct messages (reading them too);
 * - `webhooks`: reserved for app webhooks (no operation needs it yet).
 *
 * An operation without a scope, or with `closed`, is never reachable with an app token (403
 * INSUFFICIENT_SCOPE): account security, sessions, two-factor, e-mail, role and tier, billing,
 * device tokens, the app registry itself and every admin route. Operations with auth `none` ignore
 * tokens entirely and need none.
 */
export const APP_SCOPES = ['read', 'write', 'engage', 'messages', 'webhooks'] as const satisfies readonly AppScope[];

/** The scope granted when an authorization request names none, and always added to a grant. */
export const DEFAULT_APP_SCOPE: AppScope = 'read';

/** The `scope` of each operation's row in routes.ts, by operation id. */
export const ROUTE_SCOPES: Readonly<Record<string, RouteScope>> = Object.fromEntries(
  ROUTES.flatMap((route) => (route.scope ? [[route.id, route.scope] as const] : [])),
);

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

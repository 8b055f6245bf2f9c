import { DEFAULT_APP_SCOPE } from './app-scopes.js';
import type { RouteScope } from './route-types.js';
import { ROUTES } from './routes.js';

export { APP_SCOPES, DEFAULT_APP_SCOPE } from './app-scopes.js';

/** The `scope` of each operation's row (its declaration under operations/), by operation id. */
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

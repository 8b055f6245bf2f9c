import type { ErrorCode } from '@msp/errors';
import { ROUTES } from './routes.js';

/**
 * The error codes each operation of `ROUTES` may answer beyond the ones every route can give
 * (`COMMON_ERROR_CODES`), per operation id: the `errors` of each operation's declaration under operations/.
 * docs/api.md renders them next to each operation. Every code must exist in `@msp/errors`
 * (checked by packages/contracts/test/route-errors.test.ts).
 */
export const ROUTE_ERRORS: Readonly<Record<string, readonly ErrorCode[]>> = Object.fromEntries(
  ROUTES.flatMap((route) => (route.errors ? [[route.id, route.errors] as const] : [])),
);

/**
 * Codes any route may answer, not repeated per operation: a path id or paging value that is not
 * valid, the token checks of `bearer`/`optional` routes (a token sent but invalid, expired or
 * revoked; a banned or suspended account), the gateway's own answers (unknown route, wrong method,
 * body too large, wrong content type, rate limit, owner down or slow) and unexpected failures.
 */
export const COMMON_ERROR_CODES: readonly ErrorCode[] = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'ACCOUNT_BANNED',
  'ACCOUNT_SUSPENDED',
  // An account inside its deletion grace (ACC-3).
  'ACCOUNT_PENDING_DELETION',
  // An app's token (docs/developer-platform.md) on an operation outside its scopes.
  'INSUFFICIENT_SCOPE',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
];

/** The per-operation codes of `ROUTE_ERRORS`, or undefined when the operation has no list yet. */
export function routeErrors(id: string): readonly ErrorCode[] | undefined {
  return Object.hasOwn(ROUTE_ERRORS, id) ? ROUTE_ERRORS[id] : undefined;
}

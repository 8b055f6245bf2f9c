import type { ErrorCode } from '@msp/errors';
import type { ServiceName } from './services.js';

/** Auth rule of an operation (docs/api.md "Auth rules"). */
export type AuthRule = 'none' | 'bearer' | 'optional' | 'admin' | 'webhook-signature';

/**
 * What the request body may be, which decides the gateway's body limit (docs/api.md "Body limits"):
 * json 1 MB, image 11 MB, upload = audio limit + 11 MB, raw = passed byte for byte (webhooks),
 * none = no body expected (the JSON limit still applies).
 */
export type BodyKind = 'json' | 'image' | 'upload' | 'raw' | 'none';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteContract {
  /** Operation id (AUTH-1, TRK-12, ...), cited by code, tests and docs/api.md. */
  id: string;
  method: HttpMethod;
  /** Path relative to `/api`, parameters as `{name}`, named by their meaning. */
  path: string;
  auth: AuthRule;
  owner: ServiceName;
  bodyKind: BodyKind;
  summary: string;
  deprecated?: boolean;
  /**
   * The error codes the operation may answer beyond `COMMON_ERROR_CODES` (route-errors.ts); absent:
   * no per-operation list yet (the common codes and what its handler documents). docs/api.md lists them.
   */
  errors?: readonly ErrorCode[];
  /** What an app's token needs to call it (route-scopes.ts); absent or `closed`: apps never may. */
  scope?: RouteScope;
}

/** What an app's token may be granted (route-scopes.ts: `APP_SCOPES`, what each one allows). */
export type AppScope = 'read' | 'write' | 'engage' | 'messages' | 'webhooks';
/** The scope an operation needs from an app token; `closed`: apps never may call it. */
export type RouteScope = AppScope | 'closed';

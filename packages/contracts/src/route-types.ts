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
  body: BodyKind;
  summary: string;
  deprecated?: boolean;
}

import { z } from 'zod';
import { RoleSchema, TierSchema } from './enums.js';

/**
 * Redis keys shared by identity (writer) and the gateway (reader) for cutting off tokens at once,
 * without waiting for their expiry (docs/api.md "Conventions", R14).
 */
export const REVOCATION_KEYS = {
  /** Present while the session (JWT `sid`) is revoked; TTL = access-token lifetime. */
  revokedSession: (sessionId: string) => `auth:revoked-session:${sessionId}`,
  /**
   * Account lock of a user: value `banned`, `deleted` (ACC-3/ACC-5: pending or done deletion), or
   * `suspended:<ISO until>`. Absent when the account is in good standing.
   */
  userStatus: (userId: number | string) => `auth:user-status:${userId}`,
  /**
   * Present (value `suspended`) while an app (docs/developer-platform.md) is suspended: every token
   * carrying its client id (`azp`) is refused at once. No TTL; removed when the app is unsuspended.
   */
  appStatus: (clientId: string) => `auth:app-status:${clientId}`,
} as const;

/**
 * Claims of an access token (docs/api.md "Conventions"), defined once: identity signs exactly these
 * (plus `iat`, `exp`, `iss` set by the signer) and the gateway and the realtime endpoint read them
 * after the signature check (packages/http `verifyAccessToken`). `sub` is the user id as decimal
 * text, `sid` the session.
 */
export const AccessTokenClaimsSchema = z.object({
  sub: z.string().regex(/^[1-9]\d{0,15}$/),
  username: z.string().min(1),
  role: RoleSchema,
  tier: TierSchema,
  sid: z.string().min(1).max(200),
  jti: z.string().optional(),
  iat: z.number().optional(),
  exp: z.number(),
  nbf: z.number().optional(),
  iss: z.string().optional(),
  /**
   * App tokens only (docs/developer-platform.md): the app's client id and the granted scopes
   * (space-separated). A user's own session token has neither; `sid` of an app token is its grant.
   */
  azp: z.string().min(1).max(100).optional(),
  scope: z.string().max(200).optional(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaimsSchema>;

/** What identity puts into a token it signs; the signer adds `iat`, `exp` and `iss`. */
export type AccessTokenPayload = Pick<AccessTokenClaims, 'sub' | 'username' | 'role' | 'tier' | 'sid' | 'azp' | 'scope'> & { jti: string };

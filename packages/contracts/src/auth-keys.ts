/**
 * Redis keys shared by identity (writer) and the gateway (reader) for cutting off tokens at once,
 * without waiting for their expiry (API.md §1 "Access token", R14).
 */
export const REVOCATION_KEYS = {
  /** Present while the session (JWT `sid`) is revoked; TTL = access-token lifetime. */
  revokedSession: (sessionId: string) => `auth:revoked-session:${sessionId}`,
  /**
   * Account lock of a user: value `banned`, or `suspended:<ISO until>`. Absent when the account
   * is in good standing.
   */
  userStatus: (userId: number | string) => `auth:user-status:${userId}`,
} as const;

/** Claims of an access token (API.md §1). */
export interface AccessTokenClaims {
  sub: string;
  username: string;
  role: 'LISTENER' | 'ARTIST' | 'ADMIN';
  tier: 'FREE' | 'PRO';
  sid: string;
  iat: number;
  exp: number;
  jti: string;
}

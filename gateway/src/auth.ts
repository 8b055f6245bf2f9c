import type { AccessTokenClaims, AuthRule } from '@msp/contracts';
import type { ErrorCode } from '@msp/errors';
import { IDENTITY_HEADERS } from '@msp/http';
import { AccessTokenRejectedError, JwksUnavailableError, verifyAccessToken, type JwksKeyStore } from '@msp/http';

/** The verified caller, forwarded to the services as X-User-* headers. */
export interface Caller {
  userId: string;
  username: string;
  role: 'LISTENER' | 'ARTIST' | 'ADMIN';
  tier: 'FREE' | 'PRO';
  sessionId: string;
  /**
   * Set for an app's token (docs/developer-platform.md): the app's client id (`azp`) and the granted
   * scopes. `admitCaller` checks the app's suspension and the route's scope (route-scopes.ts).
   */
  app?: { clientId: string; scopes: ReadonlySet<string> };
}

export type AuthResult =
  { ok: true; caller: Caller | null } | { ok: false; status: number; code: ErrorCode; message: string; headers?: Record<string, string> };

export const RETRY_AFTER_SECONDS = '5';

/**
 * Tokens whose RS256 signature was verified, kept until their `exp` (at most 10,000, oldest out
 * first): a client sends the same token on every request for 30 minutes, and the signature check is
 * the gateway's biggest CPU cost per request. Revocation and account locks are still read from
 * Redis on every request, so a logout or a ban takes effect at once all the same.
 */
const VERIFIED_TOKEN_CACHE_SIZE = 10_000;
const verifiedTokens = new Map<string, { claims: AccessTokenClaims; expiresAtMs: number }>();

function rememberVerified(token: string, claims: AccessTokenClaims): void {
  const exp = claims.exp;
  if (verifiedTokens.size >= VERIFIED_TOKEN_CACHE_SIZE) {
    const oldest = verifiedTokens.keys().next().value;
    if (oldest !== undefined) verifiedTokens.delete(oldest);
  }
  verifiedTokens.set(token, { claims, expiresAtMs: exp * 1000 });
}

/** Verifies an access token's signature and claims (`tokenVerifier`). */
export type VerifyToken = (token: string) => Promise<AccessTokenClaims>;

/** Where verifyCaller's lines go: the request's logger. */
export interface AuthLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export function reject(status: number, code: ErrorCode, message: string, headers?: Record<string, string>): AuthResult {
  return { ok: false, status, code, message, headers };
}

/**
 * The gateway's token verifier: jose against identity's JWKS (packages/http `jwks.ts`). Only
 * RS256 is accepted: `alg: none`, HS256 (even keyed with the public key) and anything else is
 * refused before any key lookup; `exp` is required so a token can never live forever.
 */
export function tokenVerifier(keyStore: JwksKeyStore, issuer: string | undefined): VerifyToken {
  return (token) => verifyAccessToken(token, keyStore, { issuer });
}

/**
 * Applies the route's auth rule (docs/api.md "Auth rules") as far as the token goes:
 * - none / webhook-signature: no identity, whatever Authorization says.
 * - optional: anonymous without a header; a header that fails verification is a 401.
 * - bearer / admin: a verified token is required.
 * The verified caller is then checked against the revocation keys, the account locks, the admin
 * role and the per-user rate limit by `admitCaller` (gate.ts), with the answer of the request's one
 * Redis round trip.
 */
export async function verifyCaller(authorization: string | undefined, rule: AuthRule, verify: VerifyToken, log: AuthLog): Promise<AuthResult> {
  if (rule === 'none' || rule === 'webhook-signature') return { ok: true, caller: null };
  if (typeof authorization !== 'string' || authorization === '') {
    return rule === 'optional' ? { ok: true, caller: null } : reject(401, 'UNAUTHORIZED', 'Authentication is required.');
  }

  let claims: AccessTokenClaims;
  const rawToken = authorization.replace(/^Bearer\s+/i, '');
  const cached = verifiedTokens.get(rawToken);
  try {
    if (cached && cached.expiresAtMs > Date.now()) {
      claims = cached.claims;
    } else {
      claims = await verify(rawToken);
      rememberVerified(rawToken, claims);
    }
  } catch (err) {
    if (err instanceof JwksUnavailableError) {
      log.error({ err }, 'cannot verify tokens: JWKS unavailable');
      return reject(503, 'SERVICE_UNAVAILABLE', 'Tokens cannot be verified right now.', { 'retry-after': RETRY_AFTER_SECONDS });
    }
    if (!(err instanceof AccessTokenRejectedError)) throw err;
    log.info({ reason: (err.cause as Error | undefined)?.message ?? err.message }, 'token rejected');
    return reject(401, 'UNAUTHORIZED', err.message);
  }
  const { sub, username, role, tier, sid, azp } = claims;
  if (azp === undefined) return { ok: true, caller: { userId: sub, username, role, tier, sessionId: sid } };
  const app = { clientId: azp, scopes: new Set((claims.scope ?? '').split(' ').filter(Boolean)) };
  return { ok: true, caller: { userId: sub, username, role, tier, sessionId: sid, app } };
}

/** Header values a verified caller is forwarded with. */
export function identityHeaders(caller: Caller): Record<string, string> {
  return {
    [IDENTITY_HEADERS.userId]: caller.userId,
    [IDENTITY_HEADERS.role]: caller.role,
    [IDENTITY_HEADERS.tier]: caller.tier,
    [IDENTITY_HEADERS.sessionId]: caller.sessionId,
    [IDENTITY_HEADERS.username]: caller.username,
  };
}

export const IDENTITY_HEADER_NAMES: readonly string[] = Object.values(IDENTITY_HEADERS);

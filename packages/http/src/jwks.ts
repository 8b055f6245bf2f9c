import { AccessTokenClaimsSchema, type AccessTokenClaims } from '@msp/contracts';
import { createRemoteJWKSet, errors, jwtVerify, type JWTHeaderParameters, type FlattenedJWSInput, type JWTVerifyGetKey } from 'jose';

/** The JWKS could not be fetched and no cached key fits: identity is unreachable, not the token bad. */
export class JwksUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The key set of the identity service cannot be fetched.', { cause });
    this.name = 'JwksUnavailableError';
  }
}

/** The token is not acceptable: bad signature, unknown kid, wrong algorithm, expired, malformed claims. */
export class AccessTokenRejectedError extends Error {
  constructor(
    message: string,
    readonly expired = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AccessTokenRejectedError';
  }
}

export interface JwksKeyStoreOptions {
  url: string;
  fetchTimeoutMs?: number;
  /** Known keys are refreshed in the background after this age (key removal/rotation). */
  refreshAfterMs?: number;
  /** An unknown kid triggers a refetch at most this often, so random kids cannot flood identity. */
  minRefetchIntervalMs?: number;
  /** Told about a background refresh that failed (the cached keys keep working). */
  onRefreshError?: (err: unknown) => void;
}

/** identity's JWKS behind jose's remote key set, as a key resolver for `jwtVerify`. */
export interface JwksKeyStore {
  readonly getKey: JWTVerifyGetKey;
}

/** jose errors that describe the token or its header, as opposed to the key set being unreachable. */
const TOKEN_ERRORS = [
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWSInvalid,
  errors.JWTInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JWTClaimValidationFailed,
  errors.JWTExpired,
];

/**
 * JWKS cache in front of identity's `/.well-known/jwks.json`, shared by the gateway and the
 * realtime endpoint: jose's `createRemoteJWKSet` (fetch timeout; an unknown kid refetches at most
 * every `minRefetchIntervalMs`, which is how a rotated-in key is picked up) with the cached keys
 * kept while identity is unreachable (stale-while-revalidate: a refresh after `refreshAfterMs`
 * runs in the background, so a removed key stops verifying within that time). Failures to reach
 * identity surface as `JwksUnavailableError`, everything else about the token as jose's errors.
 */
export function createJwksKeyStore(options: JwksKeyStoreOptions): JwksKeyStore {
  const refreshAfterMs = options.refreshAfterMs ?? 10 * 60_000;
  const minRefetchIntervalMs = options.minRefetchIntervalMs ?? 5000;
  const remote = createRemoteJWKSet(new URL(options.url), {
    timeoutDuration: options.fetchTimeoutMs ?? 3000,
    cooldownDuration: minRefetchIntervalMs,
    // Never expire the cache on the request path; the background refresh below replaces it.
    cacheMaxAge: Number.POSITIVE_INFINITY,
  });
  let refreshedAt = 0;
  let failedAt = 0;

  function backgroundRefresh(): void {
    if (remote.reloading) return;
    refreshedAt = Date.now();
    remote.reload().catch((err: unknown) => options.onRefreshError?.(err));
  }

  return {
    async getKey(header: JWTHeaderParameters, token: FlattenedJWSInput) {
      const known = remote.jwks() !== undefined;
      if (!known && failedAt !== 0 && Date.now() - failedAt < minRefetchIntervalMs) {
        // The last attempt failed moments ago and nothing was ever fetched: identity is down.
        throw new JwksUnavailableError(new Error('JWKS fetch failed recently'));
      }
      if (known && Date.now() - refreshedAt > refreshAfterMs) backgroundRefresh();
      try {
        const key = await remote(header, token);
        if (!known) refreshedAt = Date.now();
        return key;
      } catch (err) {
        if (TOKEN_ERRORS.some((type) => err instanceof type)) throw err;
        if (!known) failedAt = Date.now();
        throw new JwksUnavailableError(err);
      }
    },
  };
}

export interface VerifyAccessTokenOptions {
  /** When set, `iss` must equal it. */
  issuer?: string;
  clockToleranceSeconds?: number;
}

const MAX_TOKEN_LENGTH = 8192;

/**
 * Verifies one of identity's access tokens with jose: RS256 only (`none`, HS256 keyed with the
 * public key and anything else are refused before any key lookup), `exp`, `sub` and `sid`
 * required, the claims read with the one schema of @msp/contracts. Throws
 * `AccessTokenRejectedError` (the client's fault: 401) or `JwksUnavailableError` (identity's: 503).
 */
export async function verifyAccessToken(token: string, keys: JwksKeyStore, options: VerifyAccessTokenOptions = {}): Promise<AccessTokenClaims> {
  if (token.length > MAX_TOKEN_LENGTH) throw new AccessTokenRejectedError('The access token is invalid.');
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, keys.getKey, {
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'sub', 'sid'],
      clockTolerance: options.clockToleranceSeconds ?? 0,
      ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
    }));
  } catch (err) {
    if (err instanceof JwksUnavailableError) throw err;
    if (err instanceof errors.JWTExpired) throw new AccessTokenRejectedError('The access token has expired.', true, { cause: err });
    throw new AccessTokenRejectedError('The access token is invalid.', false, { cause: err });
  }
  const claims = AccessTokenClaimsSchema.safeParse(payload);
  if (!claims.success) throw new AccessTokenRejectedError('The access token is invalid.');
  return claims.data;
}

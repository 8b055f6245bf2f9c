import { AccessTokenRejectedError, createJwksKeyStore, JwksUnavailableError, verifyAccessToken } from '@msp/http';

/** Who a STOMP session belongs to, from a verified access token (docs/api.md "Conventions"). */
export interface Principal {
  userId: number;
  username: string;
  role: 'LISTENER' | 'ARTIST' | 'ADMIN';
  tier: 'FREE' | 'PRO';
  sessionId: string;
  /** An app's token: the app's client id (`azp`); its suspension closes the session (account-standing.ts). */
  clientId?: string;
}

/** The token is not acceptable (bad signature, expired, wrong algorithm, malformed claims). */
export class TokenRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRejectedError';
  }
}

/** identity's key set cannot be fetched and no cached key fits: not the client's fault. */
export class KeysUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The key set of the identity service cannot be fetched.', { cause });
    this.name = 'KeysUnavailableError';
  }
}

export interface AccessTokenVerifierOptions {
  jwksUrl: string;
  /** When set, `iss` must equal it. */
  issuer?: string;
  fetchTimeoutMs?: number;
  /** Known keys are refreshed in the background after this age (rotation, removal). */
  refreshAfterMs?: number;
  /** An unknown kid refetches the set at most this often, so random kids cannot flood identity. */
  minRefetchIntervalMs?: number;
  clockToleranceSeconds?: number;
  onRefreshError?: (err: unknown) => void;
}

/**
 * The STOMP endpoint's view of identity's access tokens: the same jose verification and JWKS cache
 * as the gateway (packages/http `jwks.ts`), turned into a Principal.
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions) {
  const keys = createJwksKeyStore({
    url: options.jwksUrl,
    fetchTimeoutMs: options.fetchTimeoutMs,
    refreshAfterMs: options.refreshAfterMs,
    minRefetchIntervalMs: options.minRefetchIntervalMs,
    onRefreshError: options.onRefreshError,
  });
  const clockToleranceSeconds = options.clockToleranceSeconds ?? 5;

  return {
    async verify(token: string): Promise<Principal> {
      try {
        const { sub, username, role, tier, sid, azp, scope } = await verifyAccessToken(token, keys, { issuer: options.issuer, clockToleranceSeconds });
        // An app's token (docs/developer-platform.md) streams direct messages only with `messages`.
        if (azp !== undefined && !(scope ?? '').split(' ').includes('messages'))
          throw new TokenRejectedError("This app's token does not grant realtime access.");
        return { userId: Number(sub), username, role, tier, sessionId: sid, ...(azp !== undefined ? { clientId: azp } : {}) };
      } catch (err) {
        if (err instanceof JwksUnavailableError) throw new KeysUnavailableError(err);
        if (err instanceof AccessTokenRejectedError) throw new TokenRejectedError(err.message);
        throw err;
      }
    },
  };
}

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>;

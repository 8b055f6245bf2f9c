import { createPublicKey, type JsonWebKey } from 'node:crypto';

/** The JWKS could not be fetched and no cached key fits: identity is unreachable, not the token bad. */
export class JwksUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The key set of the identity service cannot be fetched.', { cause });
    this.name = 'JwksUnavailableError';
  }
}

/** The token names a key the identity service does not publish (or a non-RS256 key). */
export class UnknownKeyError extends Error {
  constructor(kid: string) {
    super(`No signing key ${kid}.`);
    this.name = 'UnknownKeyError';
  }
}

export interface JwksKeyStoreOptions {
  url: string;
  fetchTimeoutMs?: number;
  /** Known keys are refreshed in the background after this age (key removal/rotation). */
  refreshAfterMs?: number;
  /** An unknown kid triggers a refetch at most this often, so random kids cannot flood identity. */
  minRefetchIntervalMs?: number;
}

export interface JwksKeyStore {
  /** PEM of the RS256 public key `kid`. */
  getKey(kid: string): Promise<string>;
}

interface Jwk extends JsonWebKey {
  kid?: string;
  alg?: string;
  use?: string;
}

/**
 * JWKS cache in front of identity's `/.well-known/jwks.json`, shared by the gateway and the
 * realtime endpoint. Written here rather than using
 * get-jwks because get-jwks has no fetch timeout (its `timeout` is not a fetch option) and
 * refetches for every unknown kid; both matter on the request path of every bearer call.
 */
export function createJwksKeyStore(options: JwksKeyStoreOptions): JwksKeyStore {
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 3000;
  const refreshAfterMs = options.refreshAfterMs ?? 10 * 60_000;
  const minRefetchIntervalMs = options.minRefetchIntervalMs ?? 5000;
  let keys = new Map<string, string>();
  let fetchedAt = 0;
  let lastAttemptAt = 0;
  let inFlight: Promise<void> | null = null;

  async function fetchKeys(): Promise<void> {
    lastAttemptAt = Date.now();
    const response = await fetch(options.url, { signal: AbortSignal.timeout(fetchTimeoutMs) });
    if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
    const body = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('JWKS without keys');
    const next = new Map<string, string>();
    for (const candidate of body.keys as Jwk[]) {
      if (typeof candidate?.kid !== 'string' || candidate.kty !== 'RSA') continue;
      if (candidate.alg !== undefined && candidate.alg !== 'RS256') continue;
      if (candidate.use !== undefined && candidate.use !== 'sig') continue;
      try {
        const pem = createPublicKey({ key: candidate, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
        next.set(candidate.kid, pem.toString());
      } catch {
        // A malformed entry must not hide the good keys next to it.
      }
    }
    keys = next;
    fetchedAt = Date.now();
  }

  function refresh(): Promise<void> {
    inFlight ??= fetchKeys().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  return {
    async getKey(kid) {
      const cached = keys.get(kid);
      if (cached) {
        if (Date.now() - fetchedAt > refreshAfterMs && Date.now() - lastAttemptAt > minRefetchIntervalMs) {
          // Stale-while-revalidate: the cached key keeps working while identity is asked again.
          refresh().catch(() => undefined);
        }
        return cached;
      }
      if (inFlight || Date.now() - lastAttemptAt >= minRefetchIntervalMs) {
        try {
          await refresh();
        } catch (err) {
          throw new JwksUnavailableError(err);
        }
      } else if (fetchedAt === 0) {
        // The last attempt failed moments ago and nothing was ever fetched: identity is down.
        throw new JwksUnavailableError(new Error('JWKS fetch failed recently'));
      }
      const key = keys.get(kid);
      if (!key) throw new UnknownKeyError(kid);
      return key;
    },
  };
}

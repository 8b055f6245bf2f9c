import { createPublicKey, verify as verifySignature, type JsonWebKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/** Who a STOMP session belongs to, from a verified access token (API.md §1 "Access token"). */
export interface Principal {
  userId: number;
  username: string;
  role: 'LISTENER' | 'ARTIST' | 'ADMIN';
  tier: 'FREE' | 'PRO';
  sessionId: string;
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
}

const MAX_TOKEN_LENGTH = 8192;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

const headerSchema = z.object({ alg: z.string(), kid: z.string().min(1).max(200), typ: z.string().optional() });
const claimsSchema = z.object({
  sub: z.string().regex(/^[1-9]\d{0,15}$/),
  username: z.string().min(1),
  role: z.enum(['LISTENER', 'ARTIST', 'ADMIN']),
  tier: z.enum(['FREE', 'PRO']),
  sid: z.string().min(1).max(200),
  exp: z.number(),
  nbf: z.number().optional(),
  iss: z.string().optional(),
});

interface Jwk extends JsonWebKey {
  kid?: string;
  alg?: string;
  use?: string;
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw new TokenRejectedError('The access token is invalid.');
  }
}

/**
 * Verifies identity's RS256 access tokens against its JWKS with node:crypto. Only RS256 is
 * accepted (`none`, HS256 keyed with the public key, and anything else are refused before any key
 * lookup) and `exp` is required. The key cache has a fetch timeout and rate-limits refetches for
 * unknown kids, like the gateway's. (jose's createRemoteJWKSet would do the key-set part, but jose
 * is not a dependency of this service.)
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions) {
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 3000;
  const refreshAfterMs = options.refreshAfterMs ?? 10 * 60_000;
  const minRefetchIntervalMs = options.minRefetchIntervalMs ?? 5000;
  const tolerance = options.clockToleranceSeconds ?? 5;
  let keys = new Map<string, KeyObject>();
  let fetchedAt = 0;
  let lastAttemptAt = 0;
  let inFlight: Promise<void> | null = null;

  async function fetchKeys(): Promise<void> {
    lastAttemptAt = Date.now();
    const response = await fetch(options.jwksUrl, { signal: AbortSignal.timeout(fetchTimeoutMs) });
    if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
    const body = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('JWKS without keys');
    const next = new Map<string, KeyObject>();
    for (const candidate of body.keys as Jwk[]) {
      if (typeof candidate?.kid !== 'string' || candidate.kty !== 'RSA') continue;
      if (candidate.alg !== undefined && candidate.alg !== 'RS256') continue;
      if (candidate.use !== undefined && candidate.use !== 'sig') continue;
      try {
        next.set(candidate.kid, createPublicKey({ key: candidate, format: 'jwk' }));
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

  async function keyFor(kid: string): Promise<KeyObject> {
    const cached = keys.get(kid);
    if (cached) {
      if (Date.now() - fetchedAt > refreshAfterMs && Date.now() - lastAttemptAt > minRefetchIntervalMs) {
        refresh().catch(() => undefined);
      }
      return cached;
    }
    if (inFlight || Date.now() - lastAttemptAt >= minRefetchIntervalMs) {
      try {
        await refresh();
      } catch (err) {
        throw new KeysUnavailableError(err);
      }
    } else if (fetchedAt === 0) {
      throw new KeysUnavailableError(new Error('JWKS fetch failed recently'));
    }
    const key = keys.get(kid);
    if (!key) throw new TokenRejectedError('The access token is invalid.');
    return key;
  }

  return {
    async verify(token: string): Promise<Principal> {
      if (token.length > MAX_TOKEN_LENGTH) throw new TokenRejectedError('The access token is invalid.');
      const parts = token.split('.');
      if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) {
        throw new TokenRejectedError('The access token is invalid.');
      }
      const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
      const header = headerSchema.safeParse(decodeJson(headerPart));
      if (!header.success || header.data.alg !== 'RS256') throw new TokenRejectedError('The access token is invalid.');
      const key = await keyFor(header.data.kid);
      const valid = verifySignature(
        'RSA-SHA256',
        Buffer.from(`${headerPart}.${payloadPart}`, 'ascii'),
        key,
        Buffer.from(signaturePart, 'base64url'),
      );
      if (!valid) throw new TokenRejectedError('The access token is invalid.');
      const claims = claimsSchema.safeParse(decodeJson(payloadPart));
      if (!claims.success) throw new TokenRejectedError('The access token is invalid.');
      const now = Date.now() / 1000;
      if (claims.data.exp <= now - tolerance) throw new TokenRejectedError('The access token has expired.');
      if (claims.data.nbf !== undefined && claims.data.nbf > now + tolerance) throw new TokenRejectedError('The access token is not valid yet.');
      if (options.issuer !== undefined && claims.data.iss !== options.issuer) throw new TokenRejectedError('The access token is invalid.');
      const { sub, username, role, tier, sid } = claims.data;
      return { userId: Number(sub), username, role, tier, sessionId: sid };
    },
  };
}

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>;

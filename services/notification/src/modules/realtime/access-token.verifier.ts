import { verify as verifySignature } from 'node:crypto';
import { createJwksKeyStore, JwksUnavailableError } from '@msp/http';
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
 * lookup) and `exp` is required. Keys come from the JWKS cache the gateway uses too (fetch
 * timeout, rate-limited refetch for unknown kids).
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions) {
  const tolerance = options.clockToleranceSeconds ?? 5;
  const store = createJwksKeyStore({
    url: options.jwksUrl,
    fetchTimeoutMs: options.fetchTimeoutMs,
    refreshAfterMs: options.refreshAfterMs,
    minRefetchIntervalMs: options.minRefetchIntervalMs,
  });

  async function keyFor(kid: string): Promise<string> {
    try {
      return await store.getKey(kid);
    } catch (err) {
      if (err instanceof JwksUnavailableError) throw new KeysUnavailableError(err);
      throw new TokenRejectedError('The access token is invalid.');
    }
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

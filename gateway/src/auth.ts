import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { REVOCATION_KEYS, type AccessTokenClaims, type AuthRule } from '@msp/contracts';
import type { ErrorCode } from '@msp/errors';
import { IDENTITY_HEADERS } from '@msp/http';
import { AccessTokenRejectedError, JwksUnavailableError, verifyAccessToken, type JwksKeyStore } from '@msp/http';
import { decide, queueHit, rateKeys } from './rate-limit.js';

/** The verified caller, forwarded to the services as X-User-* headers. */
export interface Caller {
  userId: string;
  username: string;
  role: 'LISTENER' | 'ARTIST' | 'ADMIN';
  tier: 'FREE' | 'PRO';
  sessionId: string;
}

export type AuthResult =
  | { ok: true; caller: Caller | null }
  | { ok: false; status: number; code: ErrorCode; message: string; headers?: Record<string, string> };

const RETRY_AFTER_SECONDS = '5';

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

function reject(status: number, code: ErrorCode, message: string, headers?: Record<string, string>): AuthResult {
  return { ok: false, status, code, message, headers };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Verifies an access token (jose, RS256, identity's JWKS); see `registerJwt`. */
    verifyAccessToken(token: string): Promise<AccessTokenClaims>;
  }
}

/**
 * Gives the proxy its token verifier: jose against identity's JWKS (packages/http `jwks.ts`). Only
 * RS256 is accepted: `alg: none`, HS256 (even keyed with the public key) and anything else is
 * refused before any key lookup; `exp` is required so a token can never live forever.
 */
export async function registerJwt(app: FastifyInstance, keyStore: JwksKeyStore, issuer: string | undefined): Promise<void> {
  app.decorate('verifyAccessToken', (token: string) => verifyAccessToken(token, keyStore, { issuer }));
}

function lockMessage(status: string | null, now: number): AuthResult | null {
  if (!status) return null;
  if (status === 'banned') return reject(403, 'ACCOUNT_BANNED', 'This account is banned.');
  if (status.startsWith('suspended:')) {
    const until = Date.parse(status.slice('suspended:'.length));
    // An unreadable date is treated as a running suspension: the writer meant to lock the account.
    if (Number.isNaN(until)) return reject(403, 'ACCOUNT_SUSPENDED', 'This account is suspended.');
    if (until > now) {
      return reject(403, 'ACCOUNT_SUSPENDED', `This account is suspended until ${new Date(until).toISOString()}.`);
    }
  }
  return null;
}

export interface AuthDeps {
  redis: Redis;
  userLimitPerMinute: number;
}

/**
 * Applies the route's auth rule (API.md §1 "Auth column"):
 * - none / webhook-signature: no identity, whatever Authorization says.
 * - optional: anonymous without a header; a header that fails verification is a 401.
 * - bearer / admin: a verified token is required; admin also needs role ADMIN.
 * A verified token is then checked against the revocation keys of identity (one round trip that
 * also counts the per-user rate limit).
 *
 * Redis down: bearer/admin fail closed (503) because a banned user or a revoked session must not
 * get through; optional routes fall back to anonymous (public content only, nothing to leak).
 */
export async function authenticate(request: FastifyRequest, rule: AuthRule, deps: AuthDeps): Promise<AuthResult> {
  if (rule === 'none' || rule === 'webhook-signature') return { ok: true, caller: null };
  const hasHeader = typeof request.headers.authorization === 'string' && request.headers.authorization !== '';
  if (!hasHeader) {
    return rule === 'optional' ? { ok: true, caller: null } : reject(401, 'UNAUTHORIZED', 'Authentication is required.');
  }

  let claims: AccessTokenClaims;
  const rawToken = request.headers.authorization!.replace(/^Bearer\s+/i, '');
  const cached = verifiedTokens.get(rawToken);
  try {
    if (cached && cached.expiresAtMs > Date.now()) {
      claims = cached.claims;
    } else {
      claims = await request.server.verifyAccessToken(rawToken);
      rememberVerified(rawToken, claims);
    }
  } catch (err) {
    if (err instanceof JwksUnavailableError) {
      request.log.error({ err }, 'cannot verify tokens: JWKS unavailable');
      return reject(503, 'SERVICE_UNAVAILABLE', 'Tokens cannot be verified right now.', { 'retry-after': RETRY_AFTER_SECONDS });
    }
    if (!(err instanceof AccessTokenRejectedError)) throw err;
    request.log.info({ reason: (err.cause as Error | undefined)?.message ?? err.message }, 'token rejected');
    return reject(401, 'UNAUTHORIZED', err.message);
  }
  const { sub, username, role, tier, sid } = claims;

  const pipeline = deps.redis.pipeline().mget(REVOCATION_KEYS.revokedSession(sid), REVOCATION_KEYS.userStatus(sub));
  queueHit(pipeline, rateKeys.user(sub));
  let results: Array<[Error | null, unknown]> | null;
  try {
    results = await pipeline.exec();
  } catch (err) {
    results = null;
    request.log.warn({ err }, 'revocation lookup failed');
  }
  const [lookupError, lookup] = results?.[0] ?? [new Error('no answer'), null];
  if (lookupError || !Array.isArray(lookup)) {
    if (rule === 'optional') return { ok: true, caller: null };
    return reject(503, 'SERVICE_UNAVAILABLE', 'Sessions cannot be checked right now.', { 'retry-after': RETRY_AFTER_SECONDS });
  }
  const [revoked, status] = lookup as [string | null, string | null];
  if (revoked !== null) return reject(401, 'UNAUTHORIZED', 'The session has been revoked.');
  const locked = lockMessage(status, Date.now());
  if (locked) return locked;
  if (rule === 'admin' && role !== 'ADMIN') return reject(403, 'FORBIDDEN', 'Administrator role required.');

  const [rateError, rateResult] = results?.[1] ?? [new Error('no answer'), null];
  if (rateError) {
    request.log.warn({ err: rateError }, 'per-user rate limit skipped');
  } else {
    const decision = decide(rateResult, deps.userLimitPerMinute);
    if (!decision.allowed) {
      return reject(429, 'RATE_LIMITED', 'Too many requests; try again later.', { 'retry-after': String(decision.retryAfterSeconds) });
    }
  }
  return { ok: true, caller: { userId: sub, username, role, tier, sessionId: sid } };
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

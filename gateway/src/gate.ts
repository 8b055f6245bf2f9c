import type { Redis, Result } from 'ioredis';
import { REVOCATION_KEYS, requiredScope, scopeAllows, type RouteContract } from '@msp/contracts';
import { reject, RETRY_AFTER_SECONDS, type AuthResult, type Caller } from './auth.js';
import type { GatewayConfig } from './config.js';
import { decide, RATE_WINDOW_MS, rateKeys, type RateDecision } from './rate-limit.js';

/**
 * Everything the gateway asks Redis about a request, in ONE round trip: the per-client hit, and
 * for a verified caller the per-user hit and the revocation keys (revoked session, account lock).
 * Before this there were two (the client hit in the root hook, then the revocation lookup with the
 * user hit), each a network wait and a few dozen µs of CPU per request.
 *
 * KEYS: client counter [, user counter, revoked-session key, user-status key [, app-status key]]
 * ARGV: window ms, client limit
 * Answers `{clientCount, clientTtl}` for a request without caller or one already over its client
 * budget (the user is then not counted, as when the client check answered 429 on its own), else
 * `{clientCount, clientTtl, userCount, userTtl, revoked | nil, status | nil [, appStatus | nil]}` (the
 * app-status key rides along for an app's token only).
 *
 * All keys of one call are read and written by one script, so a Redis Cluster would need them in
 * one hash slot; the fleet runs one Redis (k8s/ and docker-compose.yml).
 */
const GATE_SCRIPT = `
local function hit(key, window)
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, window) end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, window)
    ttl = tonumber(window)
  end
  return {count, ttl}
end
local client = hit(KEYS[1], ARGV[1])
if #KEYS == 1 or client[1] > tonumber(ARGV[2]) then return client end
local user = hit(KEYS[2], ARGV[1])
local out = {client[1], client[2], user[1], user[2], redis.call('GET', KEYS[3]) or false, redis.call('GET', KEYS[4]) or false}
if #KEYS == 5 then out[7] = redis.call('GET', KEYS[5]) or false end
return out
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    gatewayGate(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Result<unknown[], Context>;
  }
}

export function defineGateCommand(redis: Redis): void {
  redis.defineCommand('gatewayGate', { lua: GATE_SCRIPT });
}

/** The verified token's subject and session, whose keys ride along with the client's. */
export interface GateCaller {
  userId: string;
  sessionId: string;
  /** An app's token: its client id, whose suspension key is read too. */
  app?: { clientId: string };
}

export interface GateAnswer {
  client: RateDecision;
  /** Present when a caller was given and the client was within its budget. */
  caller: { user: RateDecision; revoked: string | null; status: string | null; appStatus: string | null } | null;
}

export interface GateLimits {
  clientPerMinute: number;
  userPerMinute: number;
}

/** The configured budgets (RATE_LIMIT_CLIENT_PER_MINUTE, RATE_LIMIT_USER_PER_MINUTE). */
export function gateLimits(config: Pick<GatewayConfig, 'RATE_LIMIT_CLIENT_PER_MINUTE' | 'RATE_LIMIT_USER_PER_MINUTE'>): GateLimits {
  return { clientPerMinute: config.RATE_LIMIT_CLIENT_PER_MINUTE, userPerMinute: config.RATE_LIMIT_USER_PER_MINUTE };
}

/**
 * One script call. Null when Redis cannot answer: the callers decide what that means (rate limits
 * fail open, revocation fails closed on bearer routes).
 */
export async function passGate(redis: Redis, clientAddress: string, caller: GateCaller | null, limits: GateLimits): Promise<GateAnswer | null> {
  let result: unknown[];
  try {
    result = caller?.app
      ? await redis.gatewayGate(
          5,
          rateKeys.client(clientAddress),
          rateKeys.user(caller.userId),
          REVOCATION_KEYS.revokedSession(caller.sessionId),
          REVOCATION_KEYS.userStatus(caller.userId),
          REVOCATION_KEYS.appStatus(caller.app.clientId),
          RATE_WINDOW_MS,
          limits.clientPerMinute,
        )
      : caller
        ? await redis.gatewayGate(
            4,
            rateKeys.client(clientAddress),
            rateKeys.user(caller.userId),
            REVOCATION_KEYS.revokedSession(caller.sessionId),
            REVOCATION_KEYS.userStatus(caller.userId),
            RATE_WINDOW_MS,
            limits.clientPerMinute,
          )
        : await redis.gatewayGate(1, rateKeys.client(clientAddress), RATE_WINDOW_MS, limits.clientPerMinute);
  } catch {
    return null;
  }
  if (!Array.isArray(result)) return null;
  const client = decide(result.slice(0, 2), limits.clientPerMinute);
  if (!caller || result.length < 6) return { client, caller: null };
  return {
    client,
    caller: {
      user: decide(result.slice(2, 4), limits.userPerMinute),
      revoked: typeof result[4] === 'string' ? result[4] : null,
      status: typeof result[5] === 'string' ? result[5] : null,
      appStatus: typeof result[6] === 'string' ? result[6] : null,
    },
  };
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

/**
 * The verified caller against the gate's answer: revoked session → 401, banned or suspended → 403,
 * an app's token: app suspended → 401, route outside its scopes (route-scopes.ts) → 403
 * INSUFFICIENT_SCOPE; admin route without ADMIN → 403, per-user budget spent → 429.
 *
 * Redis down (`answer` null): bearer/admin fail closed (503) because a banned user or a revoked
 * session must not get through; optional routes fall back to anonymous (public content only,
 * nothing to leak).
 */
export function admitCaller(route: Pick<RouteContract, 'auth' | 'id'>, caller: Caller, answer: GateAnswer | null): AuthResult {
  const rule = route.auth;
  const checked = answer?.caller;
  if (!checked) {
    if (rule === 'optional') return { ok: true, caller: null };
    return reject(503, 'SERVICE_UNAVAILABLE', 'Sessions cannot be checked right now.', { 'retry-after': RETRY_AFTER_SECONDS });
  }
  if (checked.revoked !== null) return reject(401, 'UNAUTHORIZED', 'The session has been revoked.');
  const locked = lockMessage(checked.status, Date.now());
  if (locked) return locked;
  if (caller.app) {
    if (checked.appStatus !== null) return reject(401, 'UNAUTHORIZED', 'The app has been suspended.');
    if (!scopeAllows(route.id, caller.app.scopes)) {
      const needed = requiredScope(route.id);
      return reject(403, 'INSUFFICIENT_SCOPE', needed === 'closed' ? 'Apps cannot call this operation.' : `This operation needs the '${needed}' scope.`);
    }
  }
  if (rule === 'admin' && caller.role !== 'ADMIN') return reject(403, 'FORBIDDEN', 'Administrator role required.');
  if (!checked.user.allowed) {
    return reject(429, 'RATE_LIMITED', 'Too many requests; try again later.', { 'retry-after': String(checked.user.retryAfterSeconds) });
  }
  return { ok: true, caller };
}

import type { Redis, Result } from 'ioredis';
import { APP_USAGE_KEYS, APP_USAGE_RETENTION_DAYS, REVOCATION_KEYS, requiredScope, scopeAllows, usageDay, type RouteContract } from '@msp/contracts';
import { reject, RETRY_AFTER_SECONDS, type AuthResult, type Caller } from './auth.js';
import type { GatewayConfig } from './config.js';
import { appQuotaKeys, decide, RATE_WINDOW_MS, rateKeys, readQuota, type AppQuotaLimits, type AppQuotaState, type RateDecision } from './rate-limit.js';

/**
 * Everything the gateway asks Redis about a request, in ONE round trip: the per-client hit, and
 * for a verified caller the per-user hit and the revocation keys (revoked session, account lock).
 * Before this there were two (the client hit in the root hook, then the revocation lookup with the
 * user hit), each a network wait and a few dozen µs of CPU per request.
 *
 * KEYS: client counter [, user counter, revoked-session key, user-status key [, app-status key
 *       [, app-user quota counter, app quota counter, app usage hash]]]
 * ARGV: window ms, client limit [, user limit, app-user quota, its window ms, app quota, its window ms,
 *       operation id, usage TTL s]
 * Answers `{clientCount, clientTtl}` for a request without caller or one already over its client
 * budget (the user is then not counted, as when the client check answered 429 on its own), else
 * `{clientCount, clientTtl, userCount, userTtl, revoked | nil, status | nil [, appStatus | nil
 * [, appUserCount, appUserTtl, appCount, appTtl, refused]]]}` (the app-status key rides along for an
 * app's token only; the quotas and the usage hash with the 8-key form, rate-limit.ts `readQuota`).
 *
 * App quotas (docs/developer-platform.md "Quotas") are fixed windows that count only requests they
 * admit: a request over either quota (`refused` 1), of a revoked session or suspended app, or over
 * the user's per-minute budget is not counted. The usage hash of the app's UTC day counts every
 * app-token request (`requests`), its 429s (`limited`) and its operation (`op:<id>`).
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
local function usage(limited)
  local key = KEYS[8]
  if redis.call('HINCRBY', key, 'requests', 1) == 1 then redis.call('EXPIRE', key, ARGV[9]) end
  if limited then redis.call('HINCRBY', key, 'limited', 1) end
  if ARGV[8] ~= '' then redis.call('HINCRBY', key, 'op:' .. ARGV[8], 1) end
end
local function peek(key, window)
  local count = tonumber(redis.call('GET', key) or '0')
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then ttl = tonumber(window) end
  return count, ttl
end
local function count(key, window)
  local value = redis.call('INCR', key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, window)
    ttl = tonumber(window)
  end
  return value, ttl
end
local client = hit(KEYS[1], ARGV[1])
if #KEYS == 1 then return client end
if client[1] > tonumber(ARGV[2]) then
  if #KEYS == 8 then usage(true) end
  return client
end
local user = hit(KEYS[2], ARGV[1])
local out = {client[1], client[2], user[1], user[2], redis.call('GET', KEYS[3]) or false, redis.call('GET', KEYS[4]) or false}
if #KEYS >= 5 then out[7] = redis.call('GET', KEYS[5]) or false end
if #KEYS == 8 then
  local userCount, userTtl = peek(KEYS[6], ARGV[5])
  local appCount, appTtl = peek(KEYS[7], ARGV[7])
  local overMinute = user[1] > tonumber(ARGV[3])
  local refused = 0
  if userCount >= tonumber(ARGV[4]) or appCount >= tonumber(ARGV[6]) then
    refused = 1
  elseif not (out[5] or out[7] or overMinute) then
    userCount, userTtl = count(KEYS[6], ARGV[5])
    appCount, appTtl = count(KEYS[7], ARGV[7])
  end
  usage(refused == 1 or overMinute)
  out[8] = userCount
  out[9] = userTtl
  out[10] = appCount
  out[11] = appTtl
  out[12] = refused
end
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
  /** An app's token: its client id, whose suspension key is read too (and its quotas counted). */
  app?: { clientId: string };
}

export interface GateAnswer {
  client: RateDecision;
  /** Present when a caller was given and the client was within its budget. */
  caller: {
    user: RateDecision;
    revoked: string | null;
    status: string | null;
    appStatus: string | null;
    /** An app's token with quotas configured: where its two budgets stand after this request. */
    quota: AppQuotaState | null;
  } | null;
}

export interface GateLimits {
  clientPerMinute: number;
  userPerMinute: number;
  /** App-token quotas; without them app tokens are counted as users only (benchmarks). */
  appQuota?: AppQuotaLimits;
}

type LimitConfig = Pick<
  GatewayConfig,
  | 'RATE_LIMIT_CLIENT_PER_MINUTE'
  | 'RATE_LIMIT_USER_PER_MINUTE'
  | 'APP_QUOTA_PER_USER'
  | 'APP_QUOTA_PER_USER_WINDOW_SECONDS'
  | 'APP_QUOTA_PER_APP'
  | 'APP_QUOTA_PER_APP_WINDOW_SECONDS'
>;

/** The configured budgets (RATE_LIMIT_CLIENT_PER_MINUTE, RATE_LIMIT_USER_PER_MINUTE, APP_QUOTA_*). */
export function gateLimits(config: LimitConfig): GateLimits {
  return {
    clientPerMinute: config.RATE_LIMIT_CLIENT_PER_MINUTE,
    userPerMinute: config.RATE_LIMIT_USER_PER_MINUTE,
    appQuota: {
      perUser: config.APP_QUOTA_PER_USER,
      perUserWindowSeconds: config.APP_QUOTA_PER_USER_WINDOW_SECONDS,
      perApp: config.APP_QUOTA_PER_APP,
      perAppWindowSeconds: config.APP_QUOTA_PER_APP_WINDOW_SECONDS,
    },
  };
}

/**
 * One script call. Null when Redis cannot answer: the callers decide what that means (rate limits
 * fail open, revocation fails closed on bearer routes).
 */
export async function passGate(
  redis: Redis,
  clientAddress: string,
  caller: GateCaller | null,
  limits: GateLimits,
  operationId = '',
): Promise<GateAnswer | null> {
  let result: unknown[];
  const quota = limits.appQuota;
  try {
    result =
      caller?.app && quota
        ? await redis.gatewayGate(
            8,
            rateKeys.client(clientAddress),
            rateKeys.user(caller.userId),
            REVOCATION_KEYS.revokedSession(caller.sessionId),
            REVOCATION_KEYS.userStatus(caller.userId),
            REVOCATION_KEYS.appStatus(caller.app.clientId),
            appQuotaKeys.user(caller.app.clientId, caller.userId),
            appQuotaKeys.app(caller.app.clientId),
            APP_USAGE_KEYS.day(caller.app.clientId, usageDay()),
            RATE_WINDOW_MS,
            limits.clientPerMinute,
            limits.userPerMinute,
            quota.perUser,
            quota.perUserWindowSeconds * 1000,
            quota.perApp,
            quota.perAppWindowSeconds * 1000,
            operationId,
            APP_USAGE_RETENTION_DAYS * 86_400,
          )
        : caller?.app
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
      quota: quota && result.length >= 12 ? readQuota(result.slice(7, 12), quota) : null,
    },
  };
}

function lockMessage(status: string | null, now: number): AuthResult | null {
  if (!status) return null;
  if (status === 'banned') return reject(403, 'ACCOUNT_BANNED', 'This account is banned.');
  if (status === 'deleted') return reject(403, 'ACCOUNT_PENDING_DELETION', 'This account is being deleted; log in to restore it (ACC-4).');
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
  const refused = checked.quota?.refused;
  if (refused) {
    const which = refused.policy === 'user' ? "The app's quota for this user is spent" : "The app's quota is spent";
    return reject(429, 'RATE_LIMITED', `${which}; try again in ${refused.retryAfterSeconds} s.`, { 'retry-after': String(refused.retryAfterSeconds) });
  }
  return { ok: true, caller };
}

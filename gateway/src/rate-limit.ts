export const RATE_WINDOW_MS = 60_000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export const rateKeys = {
  client: (ip: string) => `gateway:rl:client:${ip}`,
  user: (userId: string) => `gateway:rl:user:${userId}`,
};

/** Turns the script's `[count, ttlMs]` into a decision. */
export function decide(result: unknown, limit: number): RateDecision {
  if (!Array.isArray(result) || result.length !== 2) return { allowed: true };
  const [count, ttl] = result.map(Number) as [number, number];
  if (!(count > limit)) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
}

/** The app-token quotas (APP_QUOTA_*; docs/developer-platform.md "Quotas"). */
export interface AppQuotaLimits {
  /** Requests one app may make for one user per window. */
  perUser: number;
  perUserWindowSeconds: number;
  /** Requests one app may make for all its users together per window. */
  perApp: number;
  perAppWindowSeconds: number;
}

export const appQuotaKeys = {
  user: (clientId: string, userId: string) => `gateway:quota:app-user:${clientId}:${userId}`,
  app: (clientId: string) => `gateway:quota:app:${clientId}`,
};

/** One quota after a request: what is left and in how many seconds its window starts over. */
export interface QuotaStanding {
  remaining: number;
  resetSeconds: number;
}

export interface AppQuotaState {
  user: QuotaStanding;
  app: QuotaStanding;
  /** Set when the request was over a quota (the spent one; `user` first when both are). */
  refused: { policy: 'user' | 'app'; retryAfterSeconds: number } | null;
}

function standing(count: number, ttlMs: number, limit: number): QuotaStanding {
  return { remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
}

/** Turns the gate script's `[appUserCount, appUserTtl, appCount, appTtl, refused]` into the quotas' standing. */
export function readQuota(result: unknown[], limits: AppQuotaLimits): AppQuotaState {
  const [userCount, userTtl, appCount, appTtl, refused] = result.map(Number) as [number, number, number, number, number];
  const user = standing(userCount, userTtl, limits.perUser);
  const app = standing(appCount, appTtl, limits.perApp);
  let spent: AppQuotaState['refused'] = null;
  if (refused === 1) {
    const userSpent = user.remaining === 0;
    const appSpent = app.remaining === 0;
    const retryAfterSeconds = Math.max(userSpent ? user.resetSeconds : 0, appSpent ? app.resetSeconds : 0, 1);
    spent = { policy: userSpent || !appSpent ? 'user' : 'app', retryAfterSeconds };
  }
  return { user, app, refused: spent };
}

/**
 * `RateLimit-Policy` of every app-token answer (draft-ietf-httpapi-ratelimit-headers, structured
 * fields): `"user"` is the app's quota for one user, `"app"` the app's quota for all its users.
 */
export function rateLimitPolicyHeader(limits: AppQuotaLimits): string {
  return `"user";q=${limits.perUser};w=${limits.perUserWindowSeconds}, "app";q=${limits.perApp};w=${limits.perAppWindowSeconds}`;
}

/** `RateLimit`: what is left of each policy (`r`) and the seconds until its window starts over (`t`). */
export function rateLimitHeader(state: AppQuotaState): string {
  return `"user";r=${state.user.remaining};t=${state.user.resetSeconds}, "app";r=${state.app.remaining};t=${state.app.resetSeconds}`;
}

/**
 * The headers an app-token answer carries: the policy always, the standing when the gate answered
 * (not when Redis was away or the client's own budget was spent first).
 */
export function appRateLimitHeaders(limits: AppQuotaLimits | undefined, state: AppQuotaState | null | undefined): Record<string, string> {
  if (!limits) return {};
  const headers: Record<string, string> = { 'ratelimit-policy': rateLimitPolicyHeader(limits) };
  if (state) headers.ratelimit = rateLimitHeader(state);
  return headers;
}

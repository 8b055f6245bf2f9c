import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Service-to-service credential for `/internal/*` routes: `<service>.<unix seconds>.<hmac>` in
 * `X-Service-Token`, an HMAC-SHA256 with the fleet's internal key (INTERNAL_SERVICE_KEY), valid for
 * a few minutes. Every internal call must carry `internalCallHeaders()`; services refuse internal
 * routes without a valid token (see docs/decisions.md, "Trust between gateway and services").
 */
export const SERVICE_TOKEN_HEADER = 'x-service-token';

/** Development default; production requires INTERNAL_SERVICE_KEY (packages/config). */
export const DEV_INTERNAL_SERVICE_KEY = 'dev-only-internal-service-key-change-me';
const MAX_SKEW_SECONDS = 300;

let state: { key: string; service: string } = {
  key: process.env.INTERNAL_SERVICE_KEY || DEV_INTERNAL_SERVICE_KEY,
  service: 'unknown',
};

/** Called once at boot by createServiceApp with the validated configuration. */
export function configureInternalAuth(options: { key: string; service: string }): void {
  state = { ...options };
}

function mac(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

export function serviceToken(service = state.service, key = state.key, now = Date.now()): string {
  const payload = `${service}.${Math.floor(now / 1000)}`;
  return `${payload}.${mac(key, payload)}`;
}

/** Headers every service-to-service HTTP call carries. */
export function internalCallHeaders(): Record<string, string> {
  return { [SERVICE_TOKEN_HEADER]: serviceToken() };
}

/** The calling service's name when the token is valid and fresh, else null. */
export function verifyServiceToken(token: string | undefined, key = state.key, now = Date.now()): string | null {
  if (!token || token.length > 300) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [service, ts, sig] = parts as [string, string, string];
  const seconds = Number(ts);
  if (!/^[a-z-]{1,40}$/.test(service) || !Number.isSafeInteger(seconds)) return null;
  if (Math.abs(now / 1000 - seconds) > MAX_SKEW_SECONDS) return null;
  const expected = Buffer.from(mac(key, `${service}.${ts}`));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return service;
}

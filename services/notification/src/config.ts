import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('notification'),
  ...serviceUrlsShape,
  /** identity's key set for STOMP CONNECT tokens; defaults to `${IDENTITY_URL}/.well-known/jwks.json`. */
  JWKS_URL: z.url().optional(),
  /** When set, the `iss` claim must equal it (identity's JWT_ISSUER), as at the gateway. */
  JWT_ISSUER: z.string().min(1).optional(),
  /** STOMP heart-beat the server offers both ways (CONNECTED `heart-beat: n,n`), WS-1. */
  WS_HEARTBEAT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** Largest STOMP frame a client may send; clients only send small control frames. */
  WS_MAX_FRAME_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(64 * 1024),
  WS_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  WS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(10_000).default(100),
  WS_MAX_SESSIONS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(20),
  /** How often open sessions are re-checked against the revocation keys (logout, missed ban events). */
  WS_REVOCATION_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** NOT-3: how long a cached unread count may live before it is recomputed from the database (R: lag ≤ 5 s). */
  BADGE_TTL_SECONDS: z.coerce.number().int().min(1).max(5).default(4),
  /** Web push (VAPID). Both keys or neither; without them a pair is generated at boot (development and tests only). */
  VAPID_PUBLIC_KEY: z.string().min(1).optional(),
  VAPID_PRIVATE_KEY: z.string().min(1).optional(),
  /** `mailto:` or https URL the push services may contact. */
  VAPID_SUBJECT: z.string().min(1).default('mailto:push@localhost'),
  /** Base URL of the mobile push provider (HTTP implementation); unset: mobile tokens are not pushed. */
  MOBILE_PUSH_URL: z.url().optional(),
  PUSH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  PUSH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** WEB tokens name the endpoint we POST to: only public https hosts unless this is true (tests, local push stand-ins). */
  WEB_PUSH_ALLOW_PRIVATE_ENDPOINTS: z.stringbool().default(false),
  /** Webhooks (APP-18…22): first retry delay, doubled per attempt up to WEBHOOK_BACKOFF_MAX_MS. */
  WEBHOOK_BACKOFF_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  WEBHOOK_BACKOFF_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  /** How long a delivery is retried, and how long an endpoint may fail before it is disabled (3 days). */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(3 * 86_400_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Deliveries in flight at once per process. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(256),
  /** Keep-alive connections per receiving origin (host and port), at most; more deliveries to it wait for one. */
  WEBHOOK_CONNECTIONS_PER_ORIGIN: z.coerce.number().int().min(1).max(256).default(16),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** The delivery log (APP-21) keeps this many days. */
  WEBHOOK_LOG_DAYS: z.coerce.number().int().min(1).max(365).default(30),
} as const;

export const requiredEnv = [
  ...SERVICE_REQUIRED_IN_PRODUCTION,
  // The STOMP CONNECT token is verified against identity's key set (JWKS_URL defaults from it).
  'IDENTITY_URL',
  // Subscriptions are bound to the VAPID public key: a pair generated per boot would orphan them.
  'VAPID_PUBLIC_KEY',
  'VAPID_PRIVATE_KEY',
] as const;

export type NotificationConfig = ReturnType<typeof loadNotificationConfig>;

export function loadNotificationConfig(env: Record<string, string | undefined> = process.env) {
  const parsed = loadConfig(configShape, { env, requiredInProduction: requiredEnv });
  return { ...parsed, JWKS_URL: parsed.JWKS_URL ?? `${parsed.IDENTITY_URL.replace(/\/+$/, '')}/.well-known/jwks.json` };
}

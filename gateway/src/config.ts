import { z } from 'zod';
import { commonEnvShape, DEFAULT_PORTS, loadConfig, serviceUrlsShape } from '@msp/config';

const MIB = 1024 * 1024;

/** `true`/`false`, or a comma list of addresses/ranges (proxy-addr names like `loopback` allowed). */
function parseTrustProxy(value: string): boolean | string[] {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);

export const configShape = {
  ...commonEnvShape,
  ...serviceUrlsShape,
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.gateway),
  /** Defaults to `${IDENTITY_URL}/.well-known/jwks.json`, computed after parsing. */
  JWKS_URL: z.url().optional(),
  /** When set, the `iss` claim must equal it; identity signs every token with its JWT_ISSUER. */
  JWT_ISSUER: z.string().min(1).optional(),
  /** Browser origins allowed by CORS; defaults to the origin of WEB_BASE_URL (http://localhost:3000 locally). */
  CORS_ORIGINS: commaList.optional(),
  RATE_LIMIT_CLIENT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  RATE_LIMIT_USER_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /**
   * App-token quotas (docs/developer-platform.md "Quotas"): requests one app may make for one user
   * per window, and for all its users together per window. User session tokens are not counted.
   */
  APP_QUOTA_PER_USER: z.coerce.number().int().min(1).default(1000),
  APP_QUOTA_PER_USER_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  APP_QUOTA_PER_APP: z.coerce.number().int().min(1).default(100_000),
  APP_QUOTA_PER_APP_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  UPLOAD_TIMEOUT_MS: z.coerce.number().int().min(1).default(600_000),
  /** A request body with no byte for this long ends with a closed socket (packages/http timeouts.ts). */
  BODY_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  AUDIO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(200 * MIB),
  /**
   * Which peers may set X-Forwarded-For (the client address for rate limits and play counting):
   * `false` (default: the socket address, whatever a client writes), or the ingress's addresses
   * or ranges as a comma list (k8s sets the pod network of the ingress controller). Never `true`
   * in front of the open internet: a client could pick its own address to dodge limits.
   */
  TRUST_PROXY: z.string().default('false').transform(parseTrustProxy),
  /**
   * Master key of the signed X-Gateway-Assertion; each service holds only the key derived for it
   * (`pnpm keys:derive`). Development uses a fixed development key.
   */
  GATEWAY_SIGNING_KEY: z.string().min(16).optional(),
  /** Bearer token for /metrics; without it /metrics answers loopback peers only (development). */
  METRICS_TOKEN: z.string().min(16).optional(),
  /**
   * Plain reads (GET/HEAD of a contract operation, no body) answered straight from Node's request
   * event instead of through Fastify's hooks, with the same answers (src/fast-lane.ts). `false`
   * sends every request through Fastify.
   */
  FAST_LANE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
} as const;

export const requiredEnv = [
  'REDIS_URL',
  'WEB_BASE_URL',
  'PUBLIC_BASE_URL',
  'IDENTITY_URL',
  'CATALOG_URL',
  'MEDIA_PROCESSING_URL',
  'SOCIAL_URL',
  'MESSAGING_URL',
  'NOTIFICATION_URL',
  'BILLING_URL',
] as const;

type ParsedConfig = z.infer<z.ZodObject<typeof configShape>>;

export type GatewayConfig = Omit<ParsedConfig, 'JWKS_URL' | 'CORS_ORIGINS'> & {
  JWKS_URL: string;
  CORS_ORIGINS: string[];
};

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const parsed = loadConfig(configShape, { env, requiredInProduction: requiredEnv });
  return {
    ...parsed,
    JWKS_URL: parsed.JWKS_URL ?? `${parsed.IDENTITY_URL.replace(/\/+$/, '')}/.well-known/jwks.json`,
    CORS_ORIGINS: parsed.CORS_ORIGINS && parsed.CORS_ORIGINS.length > 0 ? parsed.CORS_ORIGINS : [new URL(parsed.WEB_BASE_URL).origin],
  };
}

import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('identity'),
  ...serviceUrlsShape,
  /** Issuer claim of access tokens. */
  JWT_ISSUER: z.string().min(1).default('msp-identity'),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
  CAPTCHA_ENABLED: z.stringbool().default(false),
  CAPTCHA_BYPASS_TOKEN: z.string().optional(),
} as const;

export const requiredEnv = [
  'DATABASE_URL',
  'NATS_URL',
  'REDIS_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'WEB_BASE_URL',
  'PUBLIC_BASE_URL',
] as const;

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

export function loadIdentityConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('messaging'),
  ...serviceUrlsShape,
  /** Timeout of catalog's batched internal reads (rendering and checking shared tracks/playlists). */
  CATALOG_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1000),
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

export type MessagingConfig = ReturnType<typeof loadMessagingConfig>;

export function loadMessagingConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

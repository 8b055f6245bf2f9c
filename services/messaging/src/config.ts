import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('messaging'),
  ...serviceUrlsShape,
  /** Timeout of catalog's batched internal reads (rendering and checking shared tracks/playlists). */
  CATALOG_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1000),
} as const;

export const requiredEnv = SERVICE_REQUIRED_IN_PRODUCTION;

export type MessagingConfig = ReturnType<typeof loadMessagingConfig>;

export function loadMessagingConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('social'),
  ...serviceUrlsShape,
  /** Service-to-service reads (catalog's Track (full) records): short, then degrade to social's copy. */
  INTERNAL_TIMEOUT_MS: z.coerce.number().int().min(50).max(1000).default(1000),
  /** DSC-1: the feed holds the followed users' actions of this many last days (bounds the read). */
  FEED_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** DSC-1: the feed holds at most this many items, the newest (bounds the read for big followings). */
  FEED_MAX_ITEMS: z.coerce.number().int().min(1).max(10_000).default(200),
} as const;

export const requiredEnv = SERVICE_REQUIRED_IN_PRODUCTION;

export type SocialConfig = ReturnType<typeof loadSocialConfig>;

export function loadSocialConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

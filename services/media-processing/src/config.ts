import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('media-processing'),
  ...serviceUrlsShape,
  /** Binaries to run; unset means the system's when installed, else the npm-installed one. */
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  /** Processing jobs run at the same time (each one runs ffmpeg). */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
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

export type MediaProcessingConfig = ReturnType<typeof loadMediaProcessingConfig>;

export function loadMediaProcessingConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

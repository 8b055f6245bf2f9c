import { loadConfig, serviceEnvShape, serviceUrlsShape } from '@msp/config';

export const configShape = {
  ...serviceEnvShape('notification'),
  ...serviceUrlsShape,
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

export type NotificationConfig = ReturnType<typeof loadNotificationConfig>;

export function loadNotificationConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

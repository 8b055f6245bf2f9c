/**
 * Per-app API usage (docs/developer-platform.md "Usage"): the gateway counts every app-token request
 * into one Redis hash per app and UTC day; identity reads the same hashes for APP-17. Both sides use
 * the fleet's REDIS_KEY_PREFIX.
 *
 * Fields of a day's hash: `requests` (every app-token request the gateway checked), `limited` (those
 * it answered 429) and `op:<operation id>` (requests per contract operation, e.g. `op:TRK-6`).
 */
export const APP_USAGE_KEYS = {
  /** `day` is the UTC date `YYYY-MM-DD`. */
  day: (clientId: string, day: string) => `gateway:usage:${clientId}:${day}`,
} as const;

export const APP_USAGE_FIELDS = {
  requests: 'requests',
  limited: 'limited',
  operationPrefix: 'op:',
} as const;

/** How long a day's hash is kept; APP-17 answers at most this many days back. */
export const APP_USAGE_RETENTION_DAYS = 90;

/** The UTC day (`YYYY-MM-DD`) a time falls on. */
export function usageDay(at: Date | number = Date.now()): string {
  return new Date(at).toISOString().slice(0, 10);
}

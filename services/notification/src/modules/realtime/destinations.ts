/** The destinations a client may SUBSCRIBE to (WS-2…WS-4, docs/api.md "Websocket"). */
export const USER_QUEUES = {
  notifications: '/user/queue/notifications',
  messages: '/user/queue/messages',
} as const;

const TRACK_STATUS_PREFIX = '/topic/track-status/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Destination = { kind: 'track-status'; uploadId: string; key: string } | { kind: 'user-queue'; key: string };

/** The canonical key of a track-status topic; upload ids compare case-insensitively. */
export function trackStatusKey(uploadId: string): string {
  return `${TRACK_STATUS_PREFIX}${uploadId.toLowerCase()}`;
}

/** Parses a SUBSCRIBE destination; null when the server does not serve it. */
export function parseDestination(destination: string): Destination | null {
  if (destination === USER_QUEUES.notifications || destination === USER_QUEUES.messages) {
    return { kind: 'user-queue', key: destination };
  }
  if (destination.startsWith(TRACK_STATUS_PREFIX)) {
    const uploadId = destination.slice(TRACK_STATUS_PREFIX.length);
    if (UUID.test(uploadId)) return { kind: 'track-status', uploadId, key: trackStatusKey(uploadId) };
  }
  return null;
}

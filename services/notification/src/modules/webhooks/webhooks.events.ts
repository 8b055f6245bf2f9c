/** The event types an endpoint may subscribe to (APP-18 `events`). */
export const WEBHOOK_EVENT_TYPES = [
  'track.published',
  'track.liked',
  'track.reposted',
  'track.commented',
  'user.followed',
  'message.received',
  'subscription.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The JSON body of a delivery: `{id, type, created, data}`; `id` is stable across retries and redeliveries. */
export function deliveryBody(eventId: string, type: WebhookEventType, created: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id: eventId, type, created, data });
}

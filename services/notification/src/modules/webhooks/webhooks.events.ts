import type { WEBHOOK_EVENT_TYPES } from '@msp/contracts';

/** The event types an endpoint may subscribe to (APP-18 `events`, declared in @msp/contracts). */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The JSON body of a delivery: `{id, type, created, data}`; `id` is stable across retries and redeliveries. */
export function deliveryBody(eventId: string, type: WebhookEventType, created: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id: eventId, type, created, data });
}

import { z } from 'zod';
import { IdParamSchema } from '@msp/contracts';
import { WEBHOOK_EVENT_TYPES } from './webhooks.events.js';

export const MAX_WEBHOOKS_PER_APP = 10;

export const CreateWebhookBodySchema = z.object({
  /** Where deliveries are POSTed (https in production; see the SSRF rules in docs/developer-platform.md). */
  url: z.string().trim().min(1).max(2000),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .refine((list) => new Set(list).size === list.length, 'events must not repeat'),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBodySchema>;

export const WebhookSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  /** ACTIVE, or DISABLED after failing for 3 days. */
  status: z.enum(['ACTIVE', 'DISABLED']),
  createdAt: z.string(),
  disabledAt: z.string().nullable(),
});
export type WebhookView = z.infer<typeof WebhookSchema>;

/** APP-18: the endpoint and its signing secret, shown this once. */
export const CreatedWebhookSchema = WebhookSchema.extend({ secret: z.string() });

export const WebhookDeliverySchema = z.object({
  id: z.uuid(),
  /** The `id` of the body: the same for every attempt and redelivery. */
  eventId: z.uuid(),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  status: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
  attempts: z.number().int().min(0),
  /** HTTP status of the last attempt (null: no answer, e.g. a timeout). */
  responseCode: z.number().int().nullable(),
  /** Duration of the last attempt in ms. */
  latencyMs: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  /** PENDING: when the next attempt goes. */
  nextAttemptAt: z.string().nullable(),
  /** APP-22: the delivery this one repeats. */
  redeliveryOf: z.uuid().nullable(),
});
export type WebhookDeliveryView = z.infer<typeof WebhookDeliverySchema>;

export const AppParamsSchema = IdParamSchema('appId');
export const WebhookParamsSchema = z.object({ ...IdParamSchema('appId').shape, ...IdParamSchema('webhookId').shape });
export const DeliveryParamsSchema = WebhookParamsSchema.extend({ deliveryId: z.uuid() });

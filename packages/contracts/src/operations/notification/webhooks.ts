import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';

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

const AppParamsSchema = IdParamSchema('appId');
const WebhookParamsSchema = z.object({ ...IdParamSchema('appId').shape, ...IdParamSchema('webhookId').shape });
const DeliveryParamsSchema = WebhookParamsSchema.extend({ deliveryId: z.uuid() });

/** The operations of notification's webhooks module (contract row, input and output; services/notification/src/modules/webhooks); identity owns the rest of /apps. */
export const NOTIFICATION_WEBHOOKS = {
  'APP-18': {
    // APP-18…22: an app's signed webhooks; notification owns them (docs/developer-platform.md "Webhooks").
    method: 'POST',
    path: '/apps/{appId}/webhooks',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'json',
    summary: 'Create a webhook of an app',
    // APP-18…22: the app's owner only (anyone else: 404); a refused URL is a 400; a suspended app, the

    // 11th webhook, or a redelivery to a disabled webhook is a 403.
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'RESOURCE_NOT_FOUND'],

    params: AppParamsSchema,
    body: CreateWebhookBodySchema,
    response: { 201: CreatedWebhookSchema },
  },
  'APP-19': {
    method: 'GET',
    path: '/apps/{appId}/webhooks',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Webhooks of an app',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: AppParamsSchema,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(WebhookSchema) },
  },
  'APP-20': {
    method: 'DELETE',
    path: '/apps/{appId}/webhooks/{webhookId}',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Delete a webhook',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: WebhookParamsSchema,
  },
  'APP-21': {
    method: 'GET',
    path: '/apps/{appId}/webhooks/{webhookId}/deliveries',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Delivery log of a webhook (30 days)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: WebhookParamsSchema,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(WebhookDeliverySchema) },
  },
  'APP-22': {
    method: 'POST',
    path: '/apps/{appId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Redeliver a webhook delivery',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN', 'RESOURCE_NOT_FOUND'],

    params: DeliveryParamsSchema,
    response: { 202: WebhookDeliverySchema },
  },
} satisfies Operations;

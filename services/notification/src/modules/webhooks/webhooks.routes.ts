import { pageSchema, PageQuerySchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import {
  AppParamsSchema,
  CreatedWebhookSchema,
  CreateWebhookBodySchema,
  DeliveryParamsSchema,
  WebhookDeliverySchema,
  WebhookParamsSchema,
  WebhookSchema,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

/** APP-18…22: an app's signed webhooks (docs/developer-platform.md), registered from their contract; identity owns the rest of /apps. */
export const webhooksModule: FastifyPluginAsyncZod<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.route({
    ...operation('APP-18'),
    schema: { params: AppParamsSchema, body: CreateWebhookBodySchema, response: { 201: CreatedWebhookSchema } },
    handler: async (request, reply) => reply.code(201).send(await webhooks.create(requireCaller(request).userId, request.params.appId, request.body)),
  });

  app.route({
    ...operation('APP-19'),
    schema: { params: AppParamsSchema, querystring: PageQuerySchema, response: { 200: pageSchema(WebhookSchema) } },
    handler: async (request) => webhooks.list(requireCaller(request).userId, request.params.appId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-20'),
    schema: { params: WebhookParamsSchema },
    handler: async (request, reply) => {
      await webhooks.delete(requireCaller(request).userId, request.params.appId, request.params.webhookId);
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('APP-21'),
    schema: { params: WebhookParamsSchema, querystring: PageQuerySchema, response: { 200: pageSchema(WebhookDeliverySchema) } },
    handler: async (request) =>
      webhooks.deliveries(requireCaller(request).userId, request.params.appId, request.params.webhookId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-22'),
    schema: { params: DeliveryParamsSchema, response: { 202: WebhookDeliverySchema } },
    handler: async (request, reply) =>
      reply.code(202).send(await webhooks.redeliver(requireCaller(request).userId, request.params.appId, request.params.webhookId, request.params.deliveryId)),
  });
};

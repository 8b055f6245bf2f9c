import { pageSchema, PageQuerySchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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

const bearer = [{ bearerAuth: [] }];
const tags = ['Apps'];

/** APP-18…22: an app's signed webhooks (docs/developer-platform.md); identity owns the rest of /apps. */
export const webhooksModule: FastifyPluginAsyncZod<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.post(
    '/apps/:appId/webhooks',
    {
      schema: {
        operationId: 'APP-18',
        summary: 'Create a webhook of an app',
        tags,
        security: bearer,
        params: AppParamsSchema,
        body: CreateWebhookBodySchema,
        response: { 201: CreatedWebhookSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.create(requireCaller(request).userId, request.params.appId, request.body)),
  );

  app.get(
    '/apps/:appId/webhooks',
    {
      schema: {
        operationId: 'APP-19',
        summary: 'Webhooks of an app',
        tags,
        security: bearer,
        params: AppParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(WebhookSchema) },
      },
    },
    async (request) => webhooks.list(requireCaller(request).userId, request.params.appId, request.query.page, request.query.size),
  );

  app.delete(
    '/apps/:appId/webhooks/:webhookId',
    {
      schema: { operationId: 'APP-20', summary: 'Delete a webhook', tags, security: bearer, params: WebhookParamsSchema },
    },
    async (request, reply) => {
      await webhooks.delete(requireCaller(request).userId, request.params.appId, request.params.webhookId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/apps/:appId/webhooks/:webhookId/deliveries',
    {
      schema: {
        operationId: 'APP-21',
        summary: 'Delivery log of a webhook (30 days)',
        tags,
        security: bearer,
        params: WebhookParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(WebhookDeliverySchema) },
      },
    },
    async (request) =>
      webhooks.deliveries(requireCaller(request).userId, request.params.appId, request.params.webhookId, request.query.page, request.query.size),
  );

  app.post(
    '/apps/:appId/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      schema: {
        operationId: 'APP-22',
        summary: 'Redeliver a webhook delivery',
        tags,
        security: bearer,
        params: DeliveryParamsSchema,
        response: { 202: WebhookDeliverySchema },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.redeliver(requireCaller(request).userId, request.params.appId, request.params.webhookId, request.params.deliveryId)),
  );
};

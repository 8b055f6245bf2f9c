import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { WebhooksService } from './webhooks.service.js';

/** APP-18…22: an app's signed webhooks (docs/developer-platform.md), registered from their contract (operations/notification/webhooks.ts); identity owns the rest of /apps. */
export const webhooksModule: FastifyPluginAsyncZod<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.route({
    ...operation('APP-18'),
    handler: async (request, reply) => reply.code(201).send(await webhooks.create(requireCaller(request).userId, request.params.appId, request.body)),
  });

  app.route({
    ...operation('APP-19'),
    handler: async (request) => webhooks.list(requireCaller(request).userId, request.params.appId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-20'),
    handler: async (request, reply) => {
      await webhooks.delete(requireCaller(request).userId, request.params.appId, request.params.webhookId);
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('APP-21'),
    handler: async (request) =>
      webhooks.deliveries(requireCaller(request).userId, request.params.appId, request.params.webhookId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-22'),
    handler: async (request, reply) =>
      reply.code(202).send(await webhooks.redeliver(requireCaller(request).userId, request.params.appId, request.params.webhookId, request.params.deliveryId)),
  });
};

import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { SubscriptionsService } from './subscriptions.service.js';

/** SUB-1…SUB-4, registered from their contract (packages/contracts/src/operations/billing/subscriptions.ts; bearer auth). */
export const subscriptionsModule: FastifyPluginAsyncZod<{ subscriptions: SubscriptionsService }> = async (app, { subscriptions }) => {
  app.route({
    ...operation('SUB-1'),
    handler: async (request) => subscriptions.status(requireCaller(request).userId),
  });

  app.route({
    ...operation('SUB-2'),
    handler: async (request) => subscriptions.checkout(requireCaller(request).userId),
  });

  app.route({
    ...operation('SUB-3'),
    handler: async (request) => subscriptions.cancel(requireCaller(request).userId, String(request.id)),
  });

  app.route({
    ...operation('SUB-4'),
    handler: async (request) => subscriptions.renew(requireCaller(request).userId, String(request.id)),
  });
};

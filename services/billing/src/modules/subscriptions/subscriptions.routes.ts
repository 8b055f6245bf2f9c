import { SubscriptionStatusResponseSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { SubscriptionsService } from './subscriptions.service.js';

export const subscriptionsModule: FastifyPluginAsyncZod<{ subscriptions: SubscriptionsService }> = async (app, { subscriptions }) => {
  app.get(
    '/subscription/status',
    {
      schema: {
        operationId: 'SUB-1',
        summary: 'Subscription status',
        tags: ['Subscriptions'],
        response: { 200: SubscriptionStatusResponseSchema },
      },
    },
    async (request) => subscriptions.status(requireCaller(request).userId),
  );
};

import { z } from 'zod';
import { CheckoutSessionSchema, SubscriptionChangeResultSchema, SubscriptionStatusResponseSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { SubscriptionsService } from './subscriptions.service.js';

/** SUB-2 accepts no body or `{plan: "pro"}` (the one paid plan, R17). */
const CheckoutBodySchema = z
  .object({ plan: z.literal('pro').optional() })
  .optional()
  .nullable();

/** SUB-1…SUB-4, registered from their contract (packages/contracts: method, path, bearer auth). */
export const subscriptionsModule: FastifyPluginAsyncZod<{ subscriptions: SubscriptionsService }> = async (app, { subscriptions }) => {
  app.route({
    ...operation('SUB-1'),
    schema: { response: { 200: SubscriptionStatusResponseSchema } },
    handler: async (request) => subscriptions.status(requireCaller(request).userId),
  });

  app.route({
    ...operation('SUB-2'),
    schema: { body: CheckoutBodySchema, response: { 200: CheckoutSessionSchema } },
    handler: async (request) => subscriptions.checkout(requireCaller(request).userId),
  });

  app.route({
    ...operation('SUB-3'),
    schema: { response: { 200: SubscriptionChangeResultSchema } },
    handler: async (request) => subscriptions.cancel(requireCaller(request).userId, String(request.id)),
  });

  app.route({
    ...operation('SUB-4'),
    schema: { response: { 200: SubscriptionChangeResultSchema } },
    handler: async (request) => subscriptions.renew(requireCaller(request).userId, String(request.id)),
  });
};

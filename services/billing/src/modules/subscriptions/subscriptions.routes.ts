import { z } from 'zod';
import { CheckoutSessionSchema, SubscriptionChangeResultSchema, SubscriptionStatusResponseSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { SubscriptionsService } from './subscriptions.service.js';

const bearer = [{ bearerAuth: [] }];

/** SUB-2 accepts no body or `{plan: "pro"}` (the one paid plan, R17). */
const CheckoutBodySchema = z
  .object({ plan: z.literal('pro').optional() })
  .optional()
  .nullable();

export const subscriptionsModule: FastifyPluginAsyncZod<{ subscriptions: SubscriptionsService }> = async (app, { subscriptions }) => {
  app.get(
    '/subscription/status',
    {
      schema: {
        operationId: 'SUB-1',
        summary: 'Subscription status',
        tags: ['Subscriptions'],
        security: bearer,
        response: { 200: SubscriptionStatusResponseSchema },
      },
    },
    async (request) => subscriptions.status(requireCaller(request).userId),
  );

  app.post(
    '/subscription/checkout',
    {
      schema: {
        operationId: 'SUB-2',
        summary: 'Initiate a checkout session with a payment provider',
        tags: ['Subscriptions'],
        security: bearer,
        body: CheckoutBodySchema,
        response: { 200: CheckoutSessionSchema },
      },
    },
    async (request) => subscriptions.checkout(requireCaller(request).userId),
  );

  app.post(
    '/subscription/cancel',
    {
      schema: { operationId: 'SUB-3', summary: 'Cancel', tags: ['Subscriptions'], security: bearer, response: { 200: SubscriptionChangeResultSchema } },
    },
    async (request) => subscriptions.cancel(requireCaller(request).userId, String(request.id)),
  );

  app.post(
    '/subscription/renew',
    {
      schema: { operationId: 'SUB-4', summary: 'Renew', tags: ['Subscriptions'], security: bearer, response: { 200: SubscriptionChangeResultSchema } },
    },
    async (request) => subscriptions.renew(requireCaller(request).userId, String(request.id)),
  );
};

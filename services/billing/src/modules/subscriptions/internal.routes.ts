import { INTERNAL_OPERATIONS } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { internalRoute, type FastifyPluginAsyncZod } from '@msp/http';
import type { SubscriptionsService } from './subscriptions.service.js';

/** Service-to-service: identity decides USR-5 (R12) from this. Not under /api, so never public. */
export const internalSubscriptionsModule: FastifyPluginAsyncZod<{ subscriptions: SubscriptionsService }> = async (app, { subscriptions }) => {
  app.route({
    ...internalRoute(INTERNAL_OPERATIONS.subscription),
    handler: async (request) => {
      const found = await subscriptions.internal(request.params.userId);
      if (!found) throw new AppError('USER_NOT_FOUND', 'No subscription for this user.');
      return found;
    },
  });
};

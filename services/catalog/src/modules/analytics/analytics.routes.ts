import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { AnalyticsService } from './analytics.service.js';

/** MOD-12, registered from its contract (packages/contracts/src/operations/catalog/analytics.ts). */
export const analyticsModule: FastifyPluginAsyncZod<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  app.route({
    ...operation('MOD-12'),
    handler: async () => analytics.metrics(),
  });
};

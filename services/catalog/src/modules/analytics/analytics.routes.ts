import { PlatformMetricsSchema } from '@msp/contracts';
import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { AnalyticsService } from './analytics.service.js';

export const analyticsModule: FastifyPluginAsyncZod<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  app.route({
    ...operation('MOD-12'),
    schema: { response: { 200: PlatformMetricsSchema } },
    handler: async () => analytics.metrics(),
  });
};

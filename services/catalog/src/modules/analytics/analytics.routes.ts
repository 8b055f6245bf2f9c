import type { FastifyRequest } from 'fastify';
import { PlatformMetricsSchema } from '@msp/contracts';
import { requireAdmin, type FastifyPluginAsyncZod } from '@msp/http';
import type { AnalyticsService } from './analytics.service.js';

async function admin(request: FastifyRequest) {
  requireAdmin(request);
}

export const analyticsModule: FastifyPluginAsyncZod<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  app.get(
    '/admin/analytics',
    {
      onRequest: admin,
      schema: {
        operationId: 'MOD-12',
        summary: 'Platform-wide metrics (admin only)',
        tags: ['Moderation'],
        security: [{ bearerAuth: [] }],
        response: { 200: PlatformMetricsSchema },
      },
    },
    async () => analytics.metrics(),
  );
};

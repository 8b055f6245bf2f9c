import type { FastifyInstance } from 'fastify';
import { callerFrom } from '@msp/http';
import type { InsightsService } from './insights.service.js';

/**
 * Counts every TRK-19 that answered a file (INS-1/INS-2 downloads), from a root hook after the
 * response, so the download route stays as it is. A failed insert is logged, never the client's.
 */
export function installDownloadCounter(app: FastifyInstance, insights: InsightsService): void {
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 200 || (request.routeOptions.config as { operation?: unknown } | undefined)?.operation !== 'TRK-19') return;
    const caller = callerFrom(request);
    const trackId = Number((request.params as { trackId?: unknown }).trackId);
    if (!caller || !Number.isInteger(trackId)) return;
    await insights.recordDownload(trackId, caller.userId).catch((err: unknown) => request.log.warn({ err }, 'download not counted'));
  });
}

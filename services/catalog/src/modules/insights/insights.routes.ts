import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerFrom, clientAddress, operation, requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { listenerKey } from './play-counting.js';
import type { InsightsService } from './insights.service.js';

const wantsCsv = (request: FastifyRequest) => /\btext\/csv\b/i.test(String(request.headers.accept ?? ''));

function sendCsv(reply: FastifyReply, filename: string, lines: Iterable<string>) {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(Readable.from(lines));
}

/** INS-1..INS-4 (docs/insights.md), registered from their contract (packages/contracts/src/operations/catalog/insights.ts). */
export const insightsModule: FastifyPluginAsyncZod<{ insights: InsightsService }> = async (app, { insights }) => {
  app.route({
    ...operation('INS-1'),
    handler: async (request, reply) => {
      const result = await insights.track(request.params.trackId, requireCaller(request), request.query);
      if (wantsCsv(request)) return sendCsv(reply, `track-${result.trackId}-insights.csv`, insights.trackCsv(result));
      return result;
    },
  });

  app.route({
    ...operation('INS-2'),
    handler: async (request, reply) => {
      const result = await insights.artist(requireCaller(request), request.query);
      if (wantsCsv(request)) return sendCsv(reply, `artist-${result.artistId}-insights.csv`, insights.artistCsv(result));
      return result;
    },
  });

  app.route({
    ...operation('INS-3'),
    handler: async (request) => insights.voidPlays(requireAdmin(request), request.body),
  });

  app.route({
    ...operation('INS-4'),
    handler: async (request) => {
      const caller = callerFrom(request);
      const who = listenerKey(caller?.userId ?? null, clientAddress(request), String(request.headers['user-agent'] ?? ''));
      const events = 'events' in request.body ? request.body.events : [request.body];
      return insights.progress(request.params.trackId, who, events);
    },
  });
};

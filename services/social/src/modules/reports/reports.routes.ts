import { operation, requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ReportsService } from './reports.service.js';

/** MOD-2…MOD-7, registered from their contract: its auth rule answers 401/403 before the parameters are looked at. */
export const reportsModule: FastifyPluginAsyncZod<{ reports: ReportsService }> = async (app, { reports }) => {
  app.route({
    ...operation('MOD-2'),
    handler: async (req, reply) => reply.code(201).send(await reports.reportTrack(req.params.trackId, req.body, requireCaller(req))),
  });

  app.route({
    ...operation('MOD-3'),
    handler: async (req, reply) => reply.code(201).send(await reports.reportComment(req.params.commentId, req.body, requireCaller(req))),
  });

  app.route({
    ...operation('MOD-4'),
    handler: async (req) => reports.list({ status: req.query.status, targetType: req.query.targetType }, req.query.page, req.query.size),
  });

  app.route({
    ...operation('MOD-5'),
    handler: async (req) => reports.list({}, req.query.page, req.query.size),
  });

  app.route({
    ...operation('MOD-6'),
    handler: async (req) => reports.get(req.params.reportId),
  });

  app.route({
    ...operation('MOD-7'),
    handler: async (req) => reports.setStatus(req.params.reportId, req.body.status, requireAdmin(req), String(req.id)),
  });
};

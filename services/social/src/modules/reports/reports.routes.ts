import { z } from 'zod';
import {
  IdParamSchema,
  pageSchema,
  PageQuerySchema,
  ReportReasonSchema,
  ReportReceiptSchema,
  ReportSchema,
  ReportStatusSchema,
  ReportTargetTypeSchema,
  ReportUpdateResultSchema,
} from '@msp/contracts';
import { operation, requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ReportsService } from './reports.service.js';

/** {reason, description?}: description ≤ 1000 characters, blank → null. */
const ReportBody = z.object({
  reason: ReportReasonSchema,
  description: z
    .string()
    .trim()
    .max(1000, 'At most 1000 characters.')
    .nullish()
    .transform((text) => (text ? text : null)),
});
const StatusBody = z.object({ status: ReportStatusSchema });
const ListQuery = PageQuerySchema.extend({ status: ReportStatusSchema.optional(), targetType: ReportTargetTypeSchema.optional() });
const trackParams = IdParamSchema('trackId');
const commentParams = IdParamSchema('commentId');
const reportParams = IdParamSchema('reportId');

/** MOD-2…MOD-7, registered from their contract: its auth rule answers 401/403 before the parameters are looked at. */
export const reportsModule: FastifyPluginAsyncZod<{ reports: ReportsService }> = async (app, { reports }) => {
  app.route({
    ...operation('MOD-2'),
    schema: { params: trackParams, body: ReportBody, response: { 201: ReportReceiptSchema } },
    handler: async (req, reply) => reply.code(201).send(await reports.reportTrack(req.params.trackId, req.body, requireCaller(req))),
  });

  app.route({
    ...operation('MOD-3'),
    schema: { params: commentParams, body: ReportBody, response: { 201: ReportReceiptSchema } },
    handler: async (req, reply) => reply.code(201).send(await reports.reportComment(req.params.commentId, req.body, requireCaller(req))),
  });

  app.route({
    ...operation('MOD-4'),
    schema: { querystring: ListQuery, response: { 200: pageSchema(ReportSchema) } },
    handler: async (req) => reports.list({ status: req.query.status, targetType: req.query.targetType }, req.query.page, req.query.size),
  });

  app.route({
    ...operation('MOD-5'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(ReportSchema) } },
    handler: async (req) => reports.list({}, req.query.page, req.query.size),
  });

  app.route({
    ...operation('MOD-6'),
    schema: { params: reportParams, response: { 200: ReportSchema } },
    handler: async (req) => reports.get(req.params.reportId),
  });

  app.route({
    ...operation('MOD-7'),
    schema: { params: reportParams, body: StatusBody, response: { 200: ReportUpdateResultSchema } },
    handler: async (req) => reports.setStatus(req.params.reportId, req.body.status, requireAdmin(req), String(req.id)),
  });
};

import type { FastifyRequest } from 'fastify';
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
import { requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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
const tags = ['Moderation'];
const security = [{ bearerAuth: [] }];

/** 401/403 before the parameters are looked at, as on every bearer/admin route. */
async function bearer(request: FastifyRequest) {
  requireCaller(request);
}
async function admin(request: FastifyRequest) {
  requireAdmin(request);
}

export const reportsModule: FastifyPluginAsyncZod<{ reports: ReportsService }> = async (app, { reports }) => {
  app.post(
    '/tracks/:trackId/report',
    {
      onRequest: bearer,
      schema: {
        operationId: 'MOD-2',
        summary: 'Report a track',
        tags,
        security,
        params: trackParams,
        body: ReportBody,
        response: { 201: ReportReceiptSchema },
      },
    },
    async (req, reply) => reply.code(201).send(await reports.reportTrack(req.params.trackId, req.body, requireCaller(req))),
  );

  app.post(
    '/comments/:commentId/report',
    {
      onRequest: bearer,
      schema: {
        operationId: 'MOD-3',
        summary: 'Report a comment',
        tags,
        security,
        params: commentParams,
        body: ReportBody,
        response: { 201: ReportReceiptSchema },
      },
    },
    async (req, reply) => reply.code(201).send(await reports.reportComment(req.params.commentId, req.body, requireCaller(req))),
  );

  app.get(
    '/admin/reports',
    {
      onRequest: admin,
      schema: {
        operationId: 'MOD-4',
        summary: 'View a list of reports (admin only)',
        tags,
        security,
        querystring: ListQuery,
        response: { 200: pageSchema(ReportSchema) },
      },
    },
    async (req) => reports.list({ status: req.query.status, targetType: req.query.targetType }, req.query.page, req.query.size),
  );

  app.get(
    '/admin/reports/all',
    {
      onRequest: admin,
      schema: { operationId: 'MOD-5', summary: 'All reports', tags, security, querystring: PageQuerySchema, response: { 200: pageSchema(ReportSchema) } },
    },
    async (req) => reports.list({}, req.query.page, req.query.size),
  );

  app.get(
    '/admin/reports/:reportId',
    {
      onRequest: admin,
      schema: { operationId: 'MOD-6', summary: 'View a specific report (admin only)', tags, security, params: reportParams, response: { 200: ReportSchema } },
    },
    async (req) => reports.get(req.params.reportId),
  );

  app.patch(
    '/admin/reports/:reportId',
    {
      onRequest: admin,
      schema: {
        operationId: 'MOD-7',
        summary: 'Update report status (admin only)',
        tags,
        security,
        params: reportParams,
        body: StatusBody,
        response: { 200: ReportUpdateResultSchema },
      },
    },
    async (req) => reports.setStatus(req.params.reportId, req.body.status, requireAdmin(req), String(req.id)),
  );
};

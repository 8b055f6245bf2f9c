import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { ReportReasonSchema, ReportStatusSchema, ReportTargetTypeSchema } from '../../enums.js';
import { ReportReceiptSchema, ReportSchema, ReportUpdateResultSchema } from '../../records/moderation.js';
import { pageSchema } from '../../records/page.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';

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

/** The operations of social's reports module (services/social/src/modules/reports): contract row, input and output. */
export const SOCIAL_REPORTS = {
  'MOD-2': {
    method: 'POST',
    path: '/tracks/{trackId}/report',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'json',
    summary: 'Report a track',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'TRACK_NOT_FOUND', 'ALREADY_REPORTED'],

    // MOD: reporting is engagement; everything else is admin only.
    scope: 'engage',

    params: trackParams,
    body: ReportBody,
    response: { 201: ReportReceiptSchema },
  },
  'MOD-3': {
    method: 'POST',
    path: '/comments/{commentId}/report',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'json',
    summary: 'Report a comment',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'COMMENT_NOT_FOUND', 'ALREADY_REPORTED'],
    scope: 'engage',

    params: commentParams,
    body: ReportBody,
    response: { 201: ReportReceiptSchema },
  },
  'MOD-4': {
    method: 'GET',
    path: '/admin/reports',
    auth: 'admin',
    owner: 'social',
    bodyKind: 'none',
    summary: 'View a list of reports (admin only)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN'],

    querystring: ListQuery,
    response: { 200: pageSchema(ReportSchema) },
  },
  'MOD-5': {
    method: 'GET',
    path: '/admin/reports/all',
    auth: 'admin',
    owner: 'social',
    bodyKind: 'none',
    summary: 'All reports',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN'],

    querystring: PageQuerySchema,
    response: { 200: pageSchema(ReportSchema) },
  },
  'MOD-6': {
    method: 'GET',
    path: '/admin/reports/{reportId}',
    auth: 'admin',
    owner: 'social',
    bodyKind: 'none',
    summary: 'View a specific report (admin only)',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'REPORT_NOT_FOUND'],

    params: reportParams,
    response: { 200: ReportSchema },
  },
  'MOD-7': {
    method: 'PATCH',
    path: '/admin/reports/{reportId}',
    auth: 'admin',
    owner: 'social',
    bodyKind: 'json',
    summary: 'Update report status (admin only)',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'REPORT_NOT_FOUND'],

    params: reportParams,
    body: StatusBody,
    response: { 200: ReportUpdateResultSchema },
  },
} satisfies Operations;

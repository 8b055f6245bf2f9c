import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { MessageResponseSchema } from '../../records/common.js';
import { SuspensionResultSchema } from '../../records/moderation.js';
import { pageSchema } from '../../records/page.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';
import { BannedUserSchema } from '../../records/users.js';

const BanBodySchema = z.object({ isBanned: z.boolean(), reason: z.string().trim().max(1000).optional().nullable() });
const SuspendBodySchema = z.object({
  durationDays: z.number().int().min(0).max(365),
  reason: z.string().trim().max(1000).optional().nullable(),
});

/** The operations of identity's moderation module (services/identity/src/modules/moderation): contract row, input and output. */
export const IDENTITY_MODERATION = {
  'MOD-8': {
    method: 'PATCH',
    path: '/admin/users/{userId}/ban',
    auth: 'admin',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Ban a user',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'USER_NOT_FOUND'],

    params: IdParamSchema('userId'),
    body: BanBodySchema,
    response: { 200: MessageResponseSchema },
  },
  'MOD-9': {
    method: 'PATCH',
    path: '/admin/users/{userId}/suspend',
    auth: 'admin',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Suspend a user',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'USER_NOT_FOUND'],

    params: IdParamSchema('userId'),
    body: SuspendBodySchema,
    response: { 200: SuspensionResultSchema },
  },
  'MOD-10': {
    method: 'GET',
    path: '/admin/users/banned',
    auth: 'admin',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Banned users',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN'],

    querystring: PageQuerySchema,
    response: { 200: pageSchema(BannedUserSchema) },
  },
} satisfies Operations;

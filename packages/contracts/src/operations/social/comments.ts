import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';
import { CommentSchema, ReplySchema } from '../../records/social.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** R10: 1–1000 characters after trimming. */
const BodyText = z
  .string()
  .trim()
  .min(1, 'Must not be blank.')
  .max(1000, 'At most 1000 characters.')
  // PostgreSQL text cannot hold NUL.
  .refine((text) => !text.includes('\u0000'), 'Must not contain NUL characters.')
  // Not valid Unicode, and the event payload (jsonb) refuses it.
  .refine((text) => !LONE_SURROGATE.test(text), 'Must be valid Unicode text.');
const CommentBody = z.object({ body: BodyText, timestampSeconds: z.number().int().min(0).max(2_147_483_647).optional() });
/** timestampSeconds is accepted and ignored on replies (they take the parent's). */
const ReplyBody = z.object({ body: BodyText, timestampSeconds: z.unknown().optional() });
const trackParams = IdParamSchema('trackId');
const commentParams = IdParamSchema('commentId');

/** The operations of social's comments module (services/social/src/modules/comments): contract row, input and output. */
export const SOCIAL_COMMENTS = {
  'ENG-13': {
    method: 'POST',
    path: '/tracks/{trackId}/comments',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'json',
    summary: 'Add a comment to a track',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_TIMESTAMP', 'UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'engage',

    params: trackParams,
    body: CommentBody,
    response: { 201: CommentSchema },
  },
  'ENG-14': {
    method: 'GET',
    path: '/tracks/{trackId}/comments',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Comments of a track',
    errors: ['VALIDATION_FAILED', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params: trackParams,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(CommentSchema) },
  },
  'ENG-15': {
    method: 'DELETE',
    path: '/comments/{commentId}',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Delete comment',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'COMMENT_NOT_FOUND'],
    scope: 'engage',

    params: commentParams,
    response: { 204: z.null() },
  },
  'ENG-16': {
    method: 'POST',
    path: '/comments/{commentId}/replies',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'json',
    summary: 'Add a reply to a comment',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'REPLY_NOT_ALLOWED', 'UNAUTHORIZED', 'COMMENT_NOT_FOUND'],
    scope: 'engage',

    params: commentParams,
    body: ReplyBody,
    response: { 201: ReplySchema },
  },
  'ENG-17': {
    method: 'GET',
    path: '/comments/{commentId}/replies',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Replies of a comment',
    errors: ['VALIDATION_FAILED', 'COMMENT_NOT_FOUND'],
    scope: 'read',

    params: commentParams,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(ReplySchema) },
  },
} satisfies Operations;

import { z } from 'zod';
import { CommentSchema, IdParamSchema, pageSchema, PageQuerySchema, ReplySchema } from '@msp/contracts';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { CommentsService } from './comments.service.js';

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
const tags = ['Engagement'];

export const commentsModule: FastifyPluginAsyncZod<{ comments: CommentsService }> = async (app, { comments }) => {
  app.post(
    '/tracks/:trackId/comments',
    {
      schema: {
        operationId: 'ENG-13',
        summary: 'Add a comment to a track',
        tags,
        params: trackParams,
        body: CommentBody,
        response: { 201: CommentSchema },
      },
    },
    async (req, reply) => reply.code(201).send(await comments.add(req.params.trackId, req.body, requireCaller(req), String(req.id))),
  );
  app.get(
    '/tracks/:trackId/comments',
    {
      schema: {
        operationId: 'ENG-14',
        summary: 'Comments of a track',
        tags,
        params: trackParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(CommentSchema) },
      },
    },
    async (req) => comments.listForTrack(req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  );
  app.delete(
    '/comments/:commentId',
    { schema: { operationId: 'ENG-15', summary: 'Delete comment', tags, params: commentParams, response: { 204: z.null() } } },
    async (req, reply) => {
      await comments.delete(req.params.commentId, requireCaller(req), String(req.id));
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/comments/:commentId/replies',
    {
      schema: {
        operationId: 'ENG-16',
        summary: 'Add a reply to a comment',
        tags,
        params: commentParams,
        body: ReplyBody,
        response: { 201: ReplySchema },
      },
    },
    async (req, reply) => reply.code(201).send(await comments.reply(req.params.commentId, req.body, requireCaller(req), String(req.id))),
  );
  app.get(
    '/comments/:commentId/replies',
    {
      schema: {
        operationId: 'ENG-17',
        summary: 'Replies of a comment',
        tags,
        params: commentParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(ReplySchema) },
      },
    },
    async (req) => comments.listReplies(req.params.commentId, callerFrom(req), req.query.page, req.query.size),
  );
};

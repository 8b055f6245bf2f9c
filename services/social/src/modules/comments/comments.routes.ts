import { z } from 'zod';
import { CommentSchema, IdParamSchema, pageSchema, PageQuerySchema, ReplySchema } from '@msp/contracts';
import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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

/** ENG-13…ENG-17, registered from their contract (packages/contracts: method, path, auth). */
export const commentsModule: FastifyPluginAsyncZod<{ comments: CommentsService }> = async (app, { comments }) => {
  app.route({
    ...operation('ENG-13'),
    schema: { params: trackParams, body: CommentBody, response: { 201: CommentSchema } },
    handler: async (req, reply) => reply.code(201).send(await comments.add(req.params.trackId, req.body, requireCaller(req), String(req.id))),
  });
  app.route({
    ...operation('ENG-14'),
    schema: { params: trackParams, querystring: PageQuerySchema, response: { 200: pageSchema(CommentSchema) } },
    handler: async (req) => comments.listForTrack(req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-15'),
    schema: { params: commentParams, response: { 204: z.null() } },
    handler: async (req, reply) => {
      await comments.delete(req.params.commentId, requireCaller(req), String(req.id));
      return reply.code(204).send(null);
    },
  });
  app.route({
    ...operation('ENG-16'),
    schema: { params: commentParams, body: ReplyBody, response: { 201: ReplySchema } },
    handler: async (req, reply) => reply.code(201).send(await comments.reply(req.params.commentId, req.body, requireCaller(req), String(req.id))),
  });
  app.route({
    ...operation('ENG-17'),
    schema: { params: commentParams, querystring: PageQuerySchema, response: { 200: pageSchema(ReplySchema) } },
    handler: async (req) => comments.listReplies(req.params.commentId, callerFrom(req), req.query.page, req.query.size),
  });
};

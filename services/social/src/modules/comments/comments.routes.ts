import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { CommentsService } from './comments.service.js';

/** ENG-13…ENG-17, registered from their contract (packages/contracts: method, path, auth). */
export const commentsModule: FastifyPluginAsyncZod<{ comments: CommentsService }> = async (app, { comments }) => {
  app.route({
    ...operation('ENG-13'),
    handler: async (req, reply) => reply.code(201).send(await comments.add(req.params.trackId, req.body, requireCaller(req), String(req.id))),
  });
  app.route({
    ...operation('ENG-14'),
    handler: async (req) => comments.listForTrack(req.params.trackId, callerFrom(req), req.query.page, req.query.size),
  });
  app.route({
    ...operation('ENG-15'),
    handler: async (req, reply) => {
      await comments.delete(req.params.commentId, requireCaller(req), String(req.id));
      return reply.code(204).send(null);
    },
  });
  app.route({
    ...operation('ENG-16'),
    handler: async (req, reply) => reply.code(201).send(await comments.reply(req.params.commentId, req.body, requireCaller(req), String(req.id))),
  });
  app.route({
    ...operation('ENG-17'),
    handler: async (req) => comments.listReplies(req.params.commentId, callerFrom(req), req.query.page, req.query.size),
  });
};

import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { clientOf } from '../sessions/sessions.routes.js';
import type { DeletionService } from './deletion.service.js';

/**
 * ACC-3…ACC-5 (docs/account-control.md "Deletion"), registered from their contract (packages/contracts/src/operations/identity/deletion.ts).
 */
export const deletionModule: FastifyPluginAsyncZod<{ deletion: DeletionService }> = async (app, { deletion }) => {
  app.route({
    ...operation('ACC-3'),
    handler: async (request, reply) => {
      const caller = requireCaller(request);
      return reply.code(202).send(await deletion.requestDeletion(caller.userId, request.body, String(request.id)));
    },
  });

  app.route({
    ...operation('ACC-4'),
    handler: async (request) => deletion.restore(request.body.email, request.body.password, clientOf(request, null), String(request.id)),
  });

  app.route({
    ...operation('ACC-5'),
    handler: async (request, reply) => reply.code(202).send(await deletion.adminDelete(request.params.userId, String(request.id))),
  });
};

import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { ExportsService } from './exports.service.js';

/**
 * ACC-1, ACC-2 (docs/account-control.md "Export"), registered from their contract (packages/contracts/src/operations/identity/exports.ts).
 */
export const exportsModule: FastifyPluginAsyncZod<{ exports: ExportsService }> = async (app, { exports }) => {
  app.route({
    ...operation('ACC-1'),
    handler: async (request, reply) => reply.code(202).send(await exports.request(requireCaller(request).userId)),
  });

  app.route({
    ...operation('ACC-2'),
    handler: async (request) => exports.get(requireCaller(request).userId, request.params.exportId),
  });
};

import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { AccountExportSchema, ExportCreatedSchema, ExportIdParamSchema } from './exports.schemas.js';
import type { ExportsService } from './exports.service.js';

/** ACC-1, ACC-2 (docs/account-control.md "Export"), registered from their contract (method, path, auth: packages/contracts). */
export const exportsModule: FastifyPluginAsyncZod<{ exports: ExportsService }> = async (app, { exports }) => {
  app.route({
    ...operation('ACC-1'),
    schema: {
      description:
        'Starts building a ZIP of all your data (profile, tracks with their originals, playlists, plays, likes, comments, messages, notifications, billing). One export per 24 h (429 with Retry-After), 409 while one is being built. A mail and a notification tell you when it is ready.',
      response: { 202: ExportCreatedSchema },
    },
    handler: async (request, reply) => reply.code(202).send(await exports.request(requireCaller(request).userId)),
  });

  app.route({
    ...operation('ACC-2'),
    schema: {
      description: 'While READY, `url` is a signed download URL of the ZIP, valid until `expiresAt` (24 h after it was ready).',
      params: ExportIdParamSchema,
      response: { 200: AccountExportSchema },
    },
    handler: async (request) => exports.get(requireCaller(request).userId, request.params.exportId),
  });
};

import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { AccountExportSchema, ExportCreatedSchema, ExportIdParamSchema } from './exports.schemas.js';
import type { ExportsService } from './exports.service.js';

const bearer = [{ bearerAuth: [] }];
const tags = ['Account'];

/** ACC-1, ACC-2 (docs/account-control.md "Export"). */
export const exportsModule: FastifyPluginAsyncZod<{ exports: ExportsService }> = async (app, { exports }) => {
  app.post(
    '/users/me/export',
    {
      schema: {
        operationId: 'ACC-1',
        summary: 'Request an export of my data',
        description:
          'Starts building a ZIP of all your data (profile, tracks with their originals, playlists, plays, likes, comments, messages, notifications, billing). One export per 24 h (429 with Retry-After), 409 while one is being built. A mail and a notification tell you when it is ready.',
        tags,
        security: bearer,
        response: { 202: ExportCreatedSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await exports.request(requireCaller(request).userId)),
  );

  app.get(
    '/users/me/export/:exportId',
    {
      schema: {
        operationId: 'ACC-2',
        summary: 'State of an export of my data',
        description: 'While READY, `url` is a signed download URL of the ZIP, valid until `expiresAt` (24 h after it was ready).',
        tags,
        security: bearer,
        params: ExportIdParamSchema,
        response: { 200: AccountExportSchema },
      },
    },
    async (request) => exports.get(requireCaller(request).userId, request.params.exportId),
  );
};

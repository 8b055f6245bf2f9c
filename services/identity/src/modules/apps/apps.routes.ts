import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { AppsService } from './apps.service.js';

/** APP-1…APP-10, APP-17 (docs/developer-platform.md), registered from their contract (packages/contracts/src/operations/identity/apps.ts). */
export const appsModule: FastifyPluginAsyncZod<{ apps: AppsService }> = async (app, { apps }) => {
  app.route({
    ...operation('APP-1'),
    handler: async (request, reply) => reply.code(201).send(await apps.create(requireCaller(request).userId, request.body)),
  });

  app.route({
    ...operation('APP-2'),
    handler: async (request) => apps.list(requireCaller(request).userId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-3'),
    handler: async (request) => apps.get(requireCaller(request).userId, request.params.appId),
  });

  app.route({
    ...operation('APP-4'),
    handler: async (request) => apps.update(requireCaller(request).userId, request.params.appId, request.body),
  });

  app.route({
    ...operation('APP-5'),
    handler: async (request, reply) => {
      await apps.delete(requireCaller(request).userId, request.params.appId);
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('APP-17'),
    handler: async (request) => apps.usage(requireCaller(request).userId, request.params.appId, request.query),
  });

  app.route({
    ...operation('APP-6'),
    handler: async (request) => apps.rotateSecret(requireCaller(request).userId, request.params.appId),
  });

  app.route({
    ...operation('APP-7'),
    handler: async (request) => apps.setSuspended(request.params.appId, true),
  });

  app.route({
    ...operation('APP-8'),
    handler: async (request) => apps.setSuspended(request.params.appId, false),
  });

  app.route({
    ...operation('APP-9'),
    handler: async (request) => apps.authorizedApps(requireCaller(request).userId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-10'),
    handler: async (request, reply) => {
      await apps.revokeAuthorization(requireCaller(request).userId, request.params.clientId);
      return reply.code(204).send();
    },
  });
};

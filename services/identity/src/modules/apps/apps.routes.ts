import { IdParamSchema, pageSchema, PageQuerySchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import {
  AppSchema,
  AppSecretSchema,
  AuthorizedAppSchema,
  AppUsageSchema,
  ClientIdParamSchema,
  CreateAppBodySchema,
  CreatedAppSchema,
  UpdateAppBodySchema,
  UsageQuerySchema,
} from './apps.schemas.js';
import type { AppsService } from './apps.service.js';

/** APP-1…APP-10, APP-17 (docs/developer-platform.md), registered from their contract (method, path, auth: packages/contracts). */
export const appsModule: FastifyPluginAsyncZod<{ apps: AppsService }> = async (app, { apps }) => {
  app.route({
    ...operation('APP-1'),
    schema: { body: CreateAppBodySchema, response: { 201: CreatedAppSchema } },
    handler: async (request, reply) => reply.code(201).send(await apps.create(requireCaller(request).userId, request.body)),
  });

  app.route({
    ...operation('APP-2'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(AppSchema) } },
    handler: async (request) => apps.list(requireCaller(request).userId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-3'),
    schema: { params: IdParamSchema('appId'), response: { 200: AppSchema } },
    handler: async (request) => apps.get(requireCaller(request).userId, request.params.appId),
  });

  app.route({
    ...operation('APP-4'),
    schema: { params: IdParamSchema('appId'), body: UpdateAppBodySchema, response: { 200: AppSchema } },
    handler: async (request) => apps.update(requireCaller(request).userId, request.params.appId, request.body),
  });

  app.route({
    ...operation('APP-5'),
    schema: { params: IdParamSchema('appId') },
    handler: async (request, reply) => {
      await apps.delete(requireCaller(request).userId, request.params.appId);
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('APP-17'),
    schema: {
      description:
        'Requests and 429 answers per UTC day as the gateway counted them (app tokens only), and the most called operations. ' +
        '`from`/`to` are inclusive UTC days (`YYYY-MM-DD`); `to` defaults to today and `from` to 29 days before it; at most 90 days back.',
      params: IdParamSchema('appId'),
      querystring: UsageQuerySchema,
      response: { 200: AppUsageSchema },
    },
    handler: async (request) => apps.usage(requireCaller(request).userId, request.params.appId, request.query),
  });

  app.route({
    ...operation('APP-6'),
    schema: { params: IdParamSchema('appId'), response: { 200: AppSecretSchema } },
    handler: async (request) => apps.rotateSecret(requireCaller(request).userId, request.params.appId),
  });

  app.route({
    ...operation('APP-7'),
    schema: { params: IdParamSchema('appId'), response: { 200: AppSchema } },
    handler: async (request) => apps.setSuspended(request.params.appId, true),
  });

  app.route({
    ...operation('APP-8'),
    schema: { params: IdParamSchema('appId'), response: { 200: AppSchema } },
    handler: async (request) => apps.setSuspended(request.params.appId, false),
  });

  app.route({
    ...operation('APP-9'),
    schema: { querystring: PageQuerySchema, response: { 200: pageSchema(AuthorizedAppSchema) } },
    handler: async (request) => apps.authorizedApps(requireCaller(request).userId, request.query.page, request.query.size),
  });

  app.route({
    ...operation('APP-10'),
    schema: { params: ClientIdParamSchema },
    handler: async (request, reply) => {
      await apps.revokeAuthorization(requireCaller(request).userId, request.params.clientId);
      return reply.code(204).send();
    },
  });
};

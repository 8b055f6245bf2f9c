import { IdParamSchema, pageSchema, PageQuerySchema } from '@msp/contracts';
import { requireAdmin, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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

const bearer = [{ bearerAuth: [] }];
const tags = ['Apps'];

/** APP-1…APP-10 (docs/developer-platform.md). */
export const appsModule: FastifyPluginAsyncZod<{ apps: AppsService }> = async (app, { apps }) => {
  app.post(
    '/apps',
    {
      schema: {
        operationId: 'APP-1',
        summary: 'Register an app',
        tags,
        security: bearer,
        body: CreateAppBodySchema,
        response: { 201: CreatedAppSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await apps.create(requireCaller(request).userId, request.body)),
  );

  app.get(
    '/apps',
    {
      schema: {
        operationId: 'APP-2',
        summary: 'Apps of the current user',
        tags,
        security: bearer,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(AppSchema) },
      },
    },
    async (request) => apps.list(requireCaller(request).userId, request.query.page, request.query.size),
  );

  app.get(
    '/apps/:appId',
    {
      schema: {
        operationId: 'APP-3',
        summary: 'One app of the current user',
        tags,
        security: bearer,
        params: IdParamSchema('appId'),
        response: { 200: AppSchema },
      },
    },
    async (request) => apps.get(requireCaller(request).userId, request.params.appId),
  );

  app.patch(
    '/apps/:appId',
    {
      schema: {
        operationId: 'APP-4',
        summary: 'Update an app',
        tags,
        security: bearer,
        params: IdParamSchema('appId'),
        body: UpdateAppBodySchema,
        response: { 200: AppSchema },
      },
    },
    async (request) => apps.update(requireCaller(request).userId, request.params.appId, request.body),
  );

  app.delete(
    '/apps/:appId',
    { schema: { operationId: 'APP-5', summary: 'Delete an app', tags, security: bearer, params: IdParamSchema('appId') } },
    async (request, reply) => {
      await apps.delete(requireCaller(request).userId, request.params.appId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/apps/:appId/usage',
    {
      schema: {
        operationId: 'APP-17',
        summary: "An app's API usage per day (owner only)",
        description:
          'Requests and 429 answers per UTC day as the gateway counted them (app tokens only), and the most called operations. ' +
          '`from`/`to` are inclusive UTC days (`YYYY-MM-DD`); `to` defaults to today and `from` to 29 days before it; at most 90 days back.',
        tags,
        security: bearer,
        params: IdParamSchema('appId'),
        querystring: UsageQuerySchema,
        response: { 200: AppUsageSchema },
      },
    },
    async (request) => apps.usage(requireCaller(request).userId, request.params.appId, request.query),
  );

  app.post(
    '/apps/:appId/secret',
    {
      schema: {
        operationId: 'APP-6',
        summary: 'Rotate the client secret',
        tags,
        security: bearer,
        params: IdParamSchema('appId'),
        response: { 200: AppSecretSchema },
      },
    },
    async (request) => apps.rotateSecret(requireCaller(request).userId, request.params.appId),
  );

  app.post(
    '/admin/apps/:appId/suspend',
    {
      schema: {
        operationId: 'APP-7',
        summary: 'Suspend an app (admin only)',
        tags,
        security: bearer,
        params: IdParamSchema('appId'),
        response: { 200: AppSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return apps.setSuspended(request.params.appId, true);
    },
  );

  app.post(
    '/admin/apps/:appId/unsuspend',
    {
      schema: {
        operationId: 'APP-8',
        summary: 'Unsuspend an app (admin only)',
        tags,
        security: bearer,
        params: IdParamSchema('appId'),
        response: { 200: AppSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return apps.setSuspended(request.params.appId, false);
    },
  );

  app.get(
    '/users/me/authorized-apps',
    {
      schema: {
        operationId: 'APP-9',
        summary: 'Apps the current user authorized',
        tags,
        security: bearer,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(AuthorizedAppSchema) },
      },
    },
    async (request) => apps.authorizedApps(requireCaller(request).userId, request.query.page, request.query.size),
  );

  app.delete(
    '/users/me/authorized-apps/:clientId',
    { schema: { operationId: 'APP-10', summary: 'Revoke an app authorization', tags, security: bearer, params: ClientIdParamSchema } },
    async (request, reply) => {
      await apps.revokeAuthorization(requireCaller(request).userId, request.params.clientId);
      return reply.code(204).send();
    },
  );
};

import { NotificationPreferencesSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { PreferencesService } from './preferences.service.js';

/** Strict booleans ("true" is refused); unknown fields are stripped, so ignored (docs/api.md "Conventions"). */
const body = NotificationPreferencesSchema.partial();
const response = { 200: NotificationPreferencesSchema };

export const preferencesModule: FastifyPluginAsyncZod<{ preferences: PreferencesService }> = async (app, { preferences }) => {
  app.get(
    '/notifications/settings',
    { schema: { operationId: 'NOT-5', summary: 'Get notification preferences', tags: ['Notifications'], response } },
    async (request) => preferences.get(requireCaller(request).userId),
  );
  app.patch(
    '/notifications/settings',
    {
      schema: { operationId: 'NOT-6', summary: 'Update notification preferences', tags: ['Notifications'], body, response },
      // Bearer route: 401 before any validation of the body.
      onRequest: async (request) => {
        requireCaller(request);
      },
    },
    async (request) => preferences.update(requireCaller(request).userId, request.body),
  );
};

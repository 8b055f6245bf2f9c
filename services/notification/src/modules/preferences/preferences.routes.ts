import { NotificationPreferencesSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { PreferencesService } from './preferences.service.js';

/** Strict booleans ("true" is refused); unknown fields are stripped, so ignored (docs/api.md "Conventions"). */
const body = NotificationPreferencesSchema.partial();
const response = { 200: NotificationPreferencesSchema };

/** NOT-5, NOT-6, registered from their contract (bearer: the contract's check answers 401 before any validation of the body). */
export const preferencesModule: FastifyPluginAsyncZod<{ preferences: PreferencesService }> = async (app, { preferences }) => {
  app.route({
    ...operation('NOT-5'),
    schema: { response },
    handler: async (request) => preferences.get(requireCaller(request).userId),
  });
  app.route({
    ...operation('NOT-6'),
    schema: { body, response },
    handler: async (request) => preferences.update(requireCaller(request).userId, request.body),
  });
};

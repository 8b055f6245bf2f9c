import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { PreferencesService } from './preferences.service.js';

/** NOT-5, NOT-6, registered from their contract (packages/contracts/src/operations/notification/preferences.ts; bearer: the contract's check answers 401 before any validation of the body). */
export const preferencesModule: FastifyPluginAsyncZod<{ preferences: PreferencesService }> = async (app, { preferences }) => {
  app.route({
    ...operation('NOT-5'),
    handler: async (request) => preferences.get(requireCaller(request).userId),
  });
  app.route({
    ...operation('NOT-6'),
    handler: async (request) => preferences.update(requireCaller(request).userId, request.body),
  });
};

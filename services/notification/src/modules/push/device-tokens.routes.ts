import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { DeviceTokensService } from './device-tokens.service.js';

/** NOT-7, NOT-8, registered from their contract (packages/contracts/src/operations/notification/push.ts; bearer: the contract's check answers 401 before any validation). */
export const deviceTokensModule: FastifyPluginAsyncZod<{ deviceTokens: DeviceTokensService }> = async (app, { deviceTokens }) => {
  app.route({
    ...operation('NOT-7'),
    handler: async (request) => deviceTokens.register(requireCaller(request).userId, request.body.token, request.body.deviceType),
  });
  app.route({
    ...operation('NOT-8'),
    handler: async (request, reply) => {
      await deviceTokens.unregister(requireCaller(request).userId, request.query.token);
      return reply.code(204).send(null);
    },
  });
};

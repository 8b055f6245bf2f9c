import { z } from 'zod';
import { DeviceTypeSchema, MessageResponseSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { DeviceTokensService } from './device-tokens.service.js';

const TokenSchema = z.string().min(1).max(4096);

const bearer = {
  onRequest: async (request: Parameters<typeof requireCaller>[0]) => {
    requireCaller(request);
  },
};

export const deviceTokensModule: FastifyPluginAsyncZod<{ deviceTokens: DeviceTokensService }> = async (app, { deviceTokens }) => {
  app.post(
    '/users/me/device-tokens',
    {
      schema: {
        operationId: 'NOT-7',
        summary: 'Register a mobile device token for push notifications',
        tags: ['Notifications'],
        body: z.object({ token: TokenSchema, deviceType: DeviceTypeSchema }),
        response: { 200: MessageResponseSchema },
      },
      ...bearer,
    },
    async (request) => deviceTokens.register(requireCaller(request).userId, request.body.token, request.body.deviceType),
  );
  app.delete(
    '/users/me/device-tokens',
    {
      schema: {
        operationId: 'NOT-8',
        summary: 'Unregister device',
        tags: ['Notifications'],
        querystring: z.object({ token: TokenSchema }),
        response: { 204: z.null() },
      },
      ...bearer,
    },
    async (request, reply) => {
      await deviceTokens.unregister(requireCaller(request).userId, request.query.token);
      return reply.code(204).send(null);
    },
  );
};

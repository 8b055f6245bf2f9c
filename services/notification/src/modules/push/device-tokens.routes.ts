import { z } from 'zod';
import { DeviceTypeSchema, MessageResponseSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { DeviceTokensService } from './device-tokens.service.js';

const TokenSchema = z.string().min(1).max(4096);

/** NOT-7, NOT-8, registered from their contract (bearer: the contract's check answers 401 before any validation). */
export const deviceTokensModule: FastifyPluginAsyncZod<{ deviceTokens: DeviceTokensService }> = async (app, { deviceTokens }) => {
  app.route({
    ...operation('NOT-7'),
    schema: {
      description:
        'Registers a push token for the caller (a token belongs to one user: registering it again from another account moves it). ' +
        'How it is pushed depends on deviceType and the token: see `token`.',
      body: z.object({
        token: TokenSchema.describe(
          'DESKTOP, MOBILE, TABLET: the push provider registration token. ' +
            'WEB: either the JSON of a browser PushSubscription (`{"endpoint":"https://…","keys":{"p256dh":"…","auth":"…"}}`; ' +
            'pushed with Web Push and VAPID; the endpoint must be https on a public host), ' +
            'or any other registration token such as an FCM token (letters, digits and `- _ : . + / =`; pushed through the push provider used for mobile tokens). ' +
            'A WEB token starting with `{` that is not a usable PushSubscription is refused (400 VALIDATION_FAILED).',
        ),
        deviceType: DeviceTypeSchema,
      }),
      response: { 200: MessageResponseSchema },
    },
    handler: async (request) => deviceTokens.register(requireCaller(request).userId, request.body.token, request.body.deviceType),
  });
  app.route({
    ...operation('NOT-8'),
    schema: { querystring: z.object({ token: TokenSchema }), response: { 204: z.null() } },
    handler: async (request, reply) => {
      await deviceTokens.unregister(requireCaller(request).userId, request.query.token);
      return reply.code(204).send(null);
    },
  });
};

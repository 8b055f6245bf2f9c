import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { DeviceTypeSchema } from '../../enums.js';
import { MessageResponseSchema } from '../../records/common.js';

const TokenSchema = z.string().min(1).max(4096);

const RegisterBodySchema = z.object({
  token: TokenSchema.describe(
    'DESKTOP, MOBILE, TABLET: the push provider registration token. ' +
      'WEB: either the JSON of a browser PushSubscription (`{"endpoint":"https://…","keys":{"p256dh":"…","auth":"…"}}`; ' +
      'pushed with Web Push and VAPID; the endpoint must be https on a public host), ' +
      'or any other registration token such as an FCM token (letters, digits and `- _ : . + / =`; pushed through the push provider used for mobile tokens). ' +
      'A WEB token starting with `{` that is not a usable PushSubscription is refused (400 VALIDATION_FAILED).',
  ),
  deviceType: DeviceTypeSchema,
});

/** The operations of notification's push module (services/notification/src/modules/push): contract row, input and output. */
export const NOTIFICATION_PUSH = {
  'NOT-7': {
    method: 'POST',
    path: '/users/me/device-tokens',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'json',
    summary: 'Register a mobile device token for push notifications',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'DEVICE_TOKEN_EXISTS'],
    scope: 'closed',
    description:
      'Registers a push token for the caller (a token belongs to one user: registering it again from another account moves it). ' +
      'How it is pushed depends on deviceType and the token: see `token`.',
    body: RegisterBodySchema,
    response: { 200: MessageResponseSchema },
  },
  'NOT-8': {
    method: 'DELETE',
    path: '/users/me/device-tokens',
    auth: 'bearer',
    owner: 'notification',
    bodyKind: 'none',
    summary: 'Unregister device',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'closed',

    querystring: z.object({ token: TokenSchema }),
    response: { 204: z.null() },
  },
} satisfies Operations;

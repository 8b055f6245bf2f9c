import type { FastifyPluginAsyncZod } from '@msp/http';
import { AvailabilityResultSchema, MessageResponseSchema, RegisterResultSchema, ResendResultSchema } from '@msp/contracts';
import type { AccountsService } from './accounts.service.js';
import { CheckUserBodySchema, RegisterBodySchema, ResendBodySchema, VerifyEmailBodySchema } from './accounts.schemas.js';

export const accountsModule: FastifyPluginAsyncZod<{ accounts: AccountsService }> = async (app, { accounts }) => {
  app.post(
    '/auth/register/local',
    {
      schema: {
        operationId: 'AUTH-5',
        summary: 'Register with email and password',
        tags: ['Authentication'],
        body: RegisterBodySchema,
        response: { 201: RegisterResultSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await accounts.register(request.body, String(request.id))),
  );

  app.post(
    '/auth/verify-email',
    {
      schema: {
        operationId: 'AUTH-6',
        summary: 'Verify email',
        tags: ['Authentication'],
        body: VerifyEmailBodySchema,
        response: { 200: MessageResponseSchema },
      },
    },
    async (request) => accounts.verifyEmail(request.body.token),
  );

  app.post(
    '/auth/resend-verification',
    {
      schema: {
        operationId: 'AUTH-7',
        summary: 'Resend verification email',
        tags: ['Authentication'],
        body: ResendBodySchema,
        response: { 200: ResendResultSchema },
      },
    },
    async (request) => accounts.resendVerification(request.body.email),
  );

  app.post(
    '/auth/check-user',
    {
      schema: {
        operationId: 'AUTH-15',
        summary: 'Check email or profile URL availability',
        tags: ['Authentication'],
        deprecated: true,
        body: CheckUserBodySchema,
        response: { 200: AvailabilityResultSchema },
      },
    },
    async (request, reply) => {
      reply.header('deprecation', 'true');
      return accounts.checkAvailability(request.body);
    },
  );
};

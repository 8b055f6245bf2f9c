import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import { AvailabilityResultSchema, MessageResponseSchema, RegisterResultSchema, ResendResultSchema } from '@msp/contracts';
import type { AccountsService } from './accounts.service.js';
import { CheckUserBodySchema, RegisterBodySchema, ResendBodySchema, VerifyEmailBodySchema } from './accounts.schemas.js';

/** AUTH-5, AUTH-6, AUTH-7, AUTH-15, registered from their contract (method, path, auth: packages/contracts). */
export const accountsModule: FastifyPluginAsyncZod<{ accounts: AccountsService }> = async (app, { accounts }) => {
  app.route({
    ...operation('AUTH-5'),
    schema: { body: RegisterBodySchema, response: { 201: RegisterResultSchema } },
    handler: async (request, reply) => reply.code(201).send(await accounts.register(request.body, String(request.id))),
  });

  app.route({
    ...operation('AUTH-6'),
    schema: { body: VerifyEmailBodySchema, response: { 200: MessageResponseSchema } },
    handler: async (request) => accounts.verifyEmail(request.body.token),
  });

  app.route({
    ...operation('AUTH-7'),
    schema: { body: ResendBodySchema, response: { 200: ResendResultSchema } },
    handler: async (request) => accounts.resendVerification(request.body.email),
  });

  app.route({
    ...operation('AUTH-15'),
    schema: { body: CheckUserBodySchema, response: { 200: AvailabilityResultSchema } },
    handler: async (request, reply) => {
      reply.header('deprecation', 'true');
      return accounts.checkAvailability(request.body);
    },
  });
};

import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { AccountsService } from './accounts.service.js';

/** AUTH-5, AUTH-6, AUTH-7, AUTH-15, registered from their contract (packages/contracts/src/operations/identity/accounts.ts). */
export const accountsModule: FastifyPluginAsyncZod<{ accounts: AccountsService }> = async (app, { accounts }) => {
  app.route({
    ...operation('AUTH-5'),
    handler: async (request, reply) => reply.code(201).send(await accounts.register(request.body, String(request.id))),
  });

  app.route({
    ...operation('AUTH-6'),
    handler: async (request) => accounts.verifyEmail(request.body.token),
  });

  app.route({
    ...operation('AUTH-7'),
    handler: async (request) => accounts.resendVerification(request.body.email),
  });

  app.route({
    ...operation('AUTH-15'),
    handler: async (request, reply) => {
      reply.header('deprecation', 'true');
      return accounts.checkAvailability(request.body);
    },
  });
};

import type { FastifyPluginAsyncZod } from '@msp/http';
import { AvailabilityResultSchema, RegisterResultSchema } from '@msp/contracts';
import type { AccountsService } from './accounts.service.js';
import { CheckUserBodySchema, RegisterBodySchema } from './accounts.schemas.js';

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

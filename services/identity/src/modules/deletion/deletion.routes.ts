import { IdParamSchema, MessageResponseSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { clientOf } from '../sessions/sessions.routes.js';
import type { DeletionService } from './deletion.service.js';
import { DeleteAccountBodySchema, DeletionScheduledSchema, RestoreAccountBodySchema } from './deletion.schemas.js';

/** ACC-3…ACC-5 (docs/account-control.md "Deletion"), registered from their contract (method, path, auth: packages/contracts). */
export const deletionModule: FastifyPluginAsyncZod<{ deletion: DeletionService }> = async (app, { deletion }) => {
  app.route({
    ...operation('ACC-3'),
    schema: {
      description:
        'Locks the account at once (every session and app token ends; its content is hidden) and removes it when the grace ' +
        '(ACCOUNT_DELETION_GRACE, 30 days by default) has passed. Proof: `password`, or for an account without one a current ' +
        'two-factor `code` or a `recoveryCode`. ACC-4 restores the account inside the grace.',
      body: DeleteAccountBodySchema,
      response: { 202: DeletionScheduledSchema },
    },
    handler: async (request, reply) => {
      const caller = requireCaller(request);
      return reply.code(202).send(await deletion.requestDeletion(caller.userId, request.body, String(request.id)));
    },
  });

  app.route({
    ...operation('ACC-4'),
    schema: {
      description:
        'The e-mail address and password of an account pending deletion (AUTH-1 answers it 403 ACCOUNT_PENDING_DELETION). ' +
        'Throttled like AUTH-1. After the grace, or without a pending deletion: 404 RESOURCE_NOT_FOUND. The sessions ended by ' +
        'ACC-3 stay ended: log in again.',
      body: RestoreAccountBodySchema,
      response: { 200: MessageResponseSchema },
    },
    handler: async (request) => deletion.restore(request.body.email, request.body.password, clientOf(request, null), String(request.id)),
  });

  app.route({
    ...operation('ACC-5'),
    schema: {
      description: 'No grace: the account is locked and removed across the fleet at once. Admin accounts: 403; unknown or already deleted: 404.',
      params: IdParamSchema('userId'),
      response: { 202: DeletionScheduledSchema },
    },
    handler: async (request, reply) => reply.code(202).send(await deletion.adminDelete(request.params.userId, String(request.id))),
  });
};

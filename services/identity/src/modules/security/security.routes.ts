import { AppError } from '@msp/errors';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientAddress } from '../../http/client-address.js';
import { KNOWN_DEVICE_COOKIE } from '../sessions/known-devices.repository.js';
import { rememberDevice } from '../sessions/sessions.routes.js';
import type { SecurityService } from './security.service.js';

/** AUTH-8, AUTH-9, SEC-1…SEC-4, USR-12, USR-13, registered from their contract (packages/contracts/src/operations/identity/security.ts). */
export const securityModule: FastifyPluginAsyncZod<{ security: SecurityService; config: IdentityConfig }> = async (app, { security, config }) => {
  app.route({
    ...operation('AUTH-8'),
    handler: async (request) => security.forgotPassword(request.body.email, clientAddress(request)),
  });

  app.route({
    ...operation('AUTH-9'),
    handler: async (request, reply) => {
      const { token, newPassword, logoutAll } = request.body;
      const { message, knownDevice } = await security.resetPassword(token, newPassword, logoutAll, request.cookies[KNOWN_DEVICE_COOKIE] ?? null);
      rememberDevice(reply, knownDevice, config);
      return { message };
    },
  });

  app.route({
    ...operation('SEC-1'),
    handler: async (request) => {
      const caller = requireCaller(request);
      const newEmail = request.body?.newEmail ?? request.query.newEmail;
      if (!newEmail) throw AppError.validation([{ field: 'newEmail', message: 'Required.' }]);
      return security.startEmailChange(caller.userId, newEmail, 'CHANGE_EMAIL');
    },
  });

  app.route({
    ...operation('USR-12'),
    handler: async (request) => security.startEmailChange(requireCaller(request).userId, request.body.newEmail, 'CHANGE_EMAIL'),
  });

  app.route({
    ...operation('SEC-2'),
    handler: async (request) => security.startEmailChange(requireCaller(request).userId, request.body.newEmail, 'ADD_EMAIL'),
  });

  app.route({
    ...operation('SEC-3'),
    handler: async (request) => security.setPrimaryEmail(requireCaller(request).userId, request.body.newEmail),
  });

  app.route({
    ...operation('SEC-4'),
    handler: async (request) => {
      const caller = requireCaller(request);
      return security.changePassword(caller.userId, caller.sessionId, request.body.currentPassword, request.body.newPassword);
    },
  });

  app.route({
    ...operation('USR-13'),
    handler: async (request) => {
      const token = request.body?.token ?? request.query.token;
      if (!token) throw AppError.validation([{ field: 'token', message: 'Required (query or body).' }]);
      return security.verifyEmailChange(token);
    },
  });
};

import { MessageResponseSchema } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import {
  ChangePasswordBodySchema,
  ForgotPasswordBodySchema,
  NewEmailBodySchema,
  NewEmailQuerySchema,
  OptionalNewEmailBodySchema,
  ResetPasswordBodySchema,
  VerifyEmailChangeBodySchema,
  VerifyEmailChangeQuerySchema,
} from './security.schemas.js';
import type { IdentityConfig } from '../../config.js';
import { clientAddress } from '../../http/client-address.js';
import { KNOWN_DEVICE_COOKIE } from '../sessions/known-devices.repository.js';
import { rememberDevice } from '../sessions/sessions.routes.js';
import type { SecurityService } from './security.service.js';

const bearer = [{ bearerAuth: [] }];
const message = { 200: MessageResponseSchema };

export const securityModule: FastifyPluginAsyncZod<{ security: SecurityService; config: IdentityConfig }> = async (app, { security, config }) => {
  app.post(
    '/auth/forgot-password',
    { schema: { operationId: 'AUTH-8', summary: 'Start password recovery', tags: ['Authentication'], body: ForgotPasswordBodySchema, response: message } },
    async (request) => security.forgotPassword(request.body.email, clientAddress(request)),
  );

  app.post(
    '/auth/reset-password',
    { schema: { operationId: 'AUTH-9', summary: 'Reset password using token', tags: ['Authentication'], body: ResetPasswordBodySchema, response: message } },
    async (request, reply) => {
      const { token, newPassword, logoutAll } = request.body;
      const { message, knownDevice } = await security.resetPassword(token, newPassword, logoutAll, request.cookies[KNOWN_DEVICE_COOKIE] ?? null);
      rememberDevice(reply, knownDevice, config);
      return { message };
    },
  );

  app.patch(
    '/users/me/email',
    {
      schema: {
        operationId: 'SEC-1',
        summary: 'Change current user email',
        tags: ['Account Security'],
        security: bearer,
        querystring: NewEmailQuerySchema,
        body: OptionalNewEmailBodySchema,
        response: message,
      },
    },
    async (request) => {
      const caller = requireCaller(request);
      const newEmail = request.body?.newEmail ?? request.query.newEmail;
      if (!newEmail) throw AppError.validation([{ field: 'newEmail', message: 'Required.' }]);
      return security.startEmailChange(caller.userId, newEmail, 'CHANGE_EMAIL');
    },
  );

  app.patch(
    '/users/me/email/start',
    { schema: { operationId: 'USR-12', summary: 'Start email change', tags: ['Users'], security: bearer, body: NewEmailBodySchema, response: message } },
    async (request) => security.startEmailChange(requireCaller(request).userId, request.body.newEmail, 'CHANGE_EMAIL'),
  );

  app.post(
    '/users/me/add-new-email',
    {
      schema: {
        operationId: 'SEC-2',
        summary: 'Add additional email',
        tags: ['Account Security'],
        security: bearer,
        body: NewEmailBodySchema,
        response: message,
      },
    },
    async (request) => security.startEmailChange(requireCaller(request).userId, request.body.newEmail, 'ADD_EMAIL'),
  );

  app.post(
    '/users/me/update-email-primary',
    {
      schema: { operationId: 'SEC-3', summary: 'Set primary email', tags: ['Account Security'], security: bearer, body: NewEmailBodySchema, response: message },
    },
    async (request) => security.setPrimaryEmail(requireCaller(request).userId, request.body.newEmail),
  );

  app.patch(
    '/users/me/reset-password',
    {
      schema: {
        operationId: 'SEC-4',
        summary: 'Change logged-in user password',
        tags: ['Account Security'],
        security: bearer,
        body: ChangePasswordBodySchema,
        response: message,
      },
    },
    async (request) => {
      const caller = requireCaller(request);
      return security.changePassword(caller.userId, caller.sessionId, request.body.currentPassword, request.body.newPassword);
    },
  );

  app.post(
    '/users/me/email/verify',
    {
      schema: {
        operationId: 'USR-13',
        summary: 'Verify email change',
        tags: ['Users'],
        querystring: VerifyEmailChangeQuerySchema,
        body: VerifyEmailChangeBodySchema,
        response: message,
      },
    },
    async (request) => {
      const token = request.body?.token ?? request.query.token;
      if (!token) throw AppError.validation([{ field: 'token', message: 'Required (query or body).' }]);
      return security.verifyEmailChange(token);
    },
  );
};

import { LoginResponseSchema, RegisterResultSchema } from '@msp/contracts';
import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens } from '../sessions/sessions.routes.js';
import { AuthorizeQuerySchema, CallbackQuerySchema, GoogleLoginBodySchema, GoogleRegisterBodySchema, OAuthExchangeBodySchema } from './oauth.schemas.js';
import type { OAuthService } from './oauth.service.js';

/** AUTH-10…AUTH-14, registered from their contract (method, path, auth: packages/contracts). */
export const oauthModule: FastifyPluginAsyncZod<{ oauth: OAuthService; config: IdentityConfig }> = async (app, { oauth, config }) => {
  app.route({
    ...operation('AUTH-10'),
    schema: { querystring: AuthorizeQuerySchema },
    handler: async (request, reply) => reply.redirect(await oauth.authorizationUrl(request.query.returnTo), 302),
  });

  app.route({
    ...operation('AUTH-11'),
    schema: { querystring: CallbackQuerySchema },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reply.redirect(await oauth.callback(request.query, String(request.id)), 302);
    },
  });

  app.route({
    ...operation('AUTH-12'),
    schema: { body: OAuthExchangeBodySchema, response: { 200: LoginResponseSchema } },
    handler: async (request, reply) => {
      const { authTokenDto, redirectUri, deviceInfo } = request.body;
      const issued = await oauth.exchange(authTokenDto, redirectUri, clientOf(request, deviceInfo), String(request.id));
      return deliverTokens(request, reply, issued, config);
    },
  });

  app.route({
    ...operation('AUTH-13'),
    schema: { body: GoogleLoginBodySchema, response: { 200: LoginResponseSchema } },
    handler: async (request, reply) => {
      reply.header('deprecation', 'true');
      const issued = await oauth.loginWithIdToken(request.body.idToken, clientOf(request, request.body.deviceInfo), String(request.id));
      return deliverTokens(request, reply, issued, config);
    },
  });

  app.route({
    ...operation('AUTH-14'),
    schema: { body: GoogleRegisterBodySchema, response: { 201: RegisterResultSchema } },
    handler: async (request, reply) => {
      reply.header('deprecation', 'true');
      return reply.code(201).send(await oauth.register(request.body, String(request.id)));
    },
  });
};

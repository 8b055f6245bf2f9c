import { LoginResponseSchema, RegisterResultSchema } from '@msp/contracts';
import type { FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens } from '../sessions/sessions.routes.js';
import { AuthorizeQuerySchema, CallbackQuerySchema, GoogleLoginBodySchema, GoogleRegisterBodySchema, OAuthExchangeBodySchema } from './oauth.schemas.js';
import type { OAuthService } from './oauth.service.js';

export const oauthModule: FastifyPluginAsyncZod<{ oauth: OAuthService; config: IdentityConfig }> = async (app, { oauth, config }) => {
  app.get(
    '/oauth2/authorization/google',
    { schema: { operationId: 'AUTH-10', summary: 'Trigger identity-provider login', tags: ['Authentication'], querystring: AuthorizeQuerySchema } },
    async (request, reply) => reply.redirect(await oauth.authorizationUrl(request.query.returnTo), 302),
  );

  app.get(
    '/login/oauth2/code/google',
    { schema: { operationId: 'AUTH-11', summary: 'Identity-provider callback (internal)', tags: ['Authentication'], querystring: CallbackQuerySchema } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reply.redirect(await oauth.callback(request.query, String(request.id)), 302);
    },
  );

  app.post(
    '/auth/oauth/google',
    {
      schema: {
        operationId: 'AUTH-12',
        summary: 'Exchange an oauth token with the service',
        tags: ['Authentication'],
        body: OAuthExchangeBodySchema,
        response: { 200: LoginResponseSchema },
      },
    },
    async (request, reply) => {
      const { authTokenDto, redirectUri, deviceInfo } = request.body;
      const issued = await oauth.exchange(authTokenDto, redirectUri, clientOf(request, deviceInfo), String(request.id));
      return deliverTokens(request, reply, issued, config);
    },
  );

  app.post(
    '/auth/login/google',
    {
      schema: {
        operationId: 'AUTH-13',
        summary: 'Login with an identity provider',
        tags: ['Authentication'],
        deprecated: true,
        body: GoogleLoginBodySchema,
        response: { 200: LoginResponseSchema },
      },
    },
    async (request, reply) => {
      reply.header('deprecation', 'true');
      const issued = await oauth.loginWithIdToken(request.body.idToken, clientOf(request, request.body.deviceInfo), String(request.id));
      return deliverTokens(request, reply, issued, config);
    },
  );

  app.post(
    '/auth/register/google',
    {
      schema: {
        operationId: 'AUTH-14',
        summary: 'Register with an identity provider',
        tags: ['Authentication'],
        deprecated: true,
        body: GoogleRegisterBodySchema,
        response: { 201: RegisterResultSchema },
      },
    },
    async (request, reply) => {
      reply.header('deprecation', 'true');
      return reply.code(201).send(await oauth.register(request.body, String(request.id)));
    },
  );
};

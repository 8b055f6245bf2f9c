import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens } from '../sessions/sessions.routes.js';
import type { OAuthService } from './oauth.service.js';

/** AUTH-10…AUTH-14, registered from their contract (packages/contracts/src/operations/identity/oauth.ts). */
export const oauthModule: FastifyPluginAsyncZod<{ oauth: OAuthService; config: IdentityConfig }> = async (app, { oauth, config }) => {
  app.route({
    ...operation('AUTH-10'),
    handler: async (request, reply) => reply.redirect(await oauth.authorizationUrl(request.query.returnTo), 302),
  });

  app.route({
    ...operation('AUTH-11'),
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reply.redirect(await oauth.callback(request.query, String(request.id)), 302);
    },
  });

  app.route({
    ...operation('AUTH-12'),
    handler: async (request, reply) => {
      const { authTokenDto, redirectUri, deviceInfo } = request.body;
      const issued = await oauth.exchange(authTokenDto, redirectUri, clientOf(request, deviceInfo), String(request.id));
      return deliverTokens(request, reply, issued, config);
    },
  });

  app.route({
    ...operation('AUTH-13'),
    handler: async (request, reply) => {
      reply.header('deprecation', 'true');
      const issued = await oauth.loginWithIdToken(request.body.idToken, clientOf(request, request.body.deviceInfo), String(request.id));
      return deliverTokens(request, reply, issued, config);
    },
  });

  app.route({
    ...operation('AUTH-14'),
    handler: async (request, reply) => {
      reply.header('deprecation', 'true');
      return reply.code(201).send(await oauth.register(request.body, String(request.id)));
    },
  });
};

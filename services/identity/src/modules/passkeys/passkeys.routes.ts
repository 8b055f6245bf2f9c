import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { AppError } from '@msp/errors';
import type { IdentityConfig } from '../../config.js';
import type { MfaRepository } from '../mfa/mfa.repository.js';
import { passkeyRecord } from '../mfa/mfa.routes.js';
import type { MfaService } from '../mfa/mfa.service.js';
import { clientOf, deliverTokens, rememberDevice } from '../sessions/sessions.routes.js';
import { DEV_PAGE_CSP, DEV_PAGE_HTML } from './dev-page.js';
import type { PasskeysService } from './passkeys.service.js';

const asJson = (options: { challenge: string }) => options as { challenge: string } & Record<string, unknown>;

/**
 * MFA-6…MFA-13: passkeys (WebAuthn) — registration, management, sign-in (docs/account-security.md), registered from their
 * contract (packages/contracts/src/operations/identity/passkeys.ts).
 */
export const passkeysModule: FastifyPluginAsyncZod<{ passkeys: PasskeysService; mfa: MfaService; users: MfaRepository; config: IdentityConfig }> = async (
  app,
  { passkeys, mfa, users, config },
) => {
  app.route({
    ...operation('MFA-6'),
    handler: async (request) => {
      const user = await users.findTokenUser(requireCaller(request).userId);
      if (!user) throw new AppError('UNAUTHORIZED');
      return asJson(await passkeys.registrationOptions(user));
    },
  });

  app.route({
    ...operation('MFA-7'),
    handler: async (request, reply) => {
      const created = await passkeys.register(requireCaller(request).userId, request.body.credential as unknown as RegistrationResponseJSON, request.body.name);
      return reply.code(201).send(passkeyRecord(created));
    },
  });

  app.route({
    ...operation('MFA-8'),
    handler: async (request) => (await passkeys.list(requireCaller(request).userId)).map(passkeyRecord),
  });

  app.route({
    ...operation('MFA-9'),
    handler: async (request) => passkeyRecord(await passkeys.rename(requireCaller(request).userId, request.params.passkeyId, request.body.name)),
  });

  app.route({
    ...operation('MFA-10'),
    handler: async (request, reply) => {
      await passkeys.remove(requireCaller(request).userId, request.params.passkeyId);
      return reply.code(204).send();
    },
  });

  app.route({
    ...operation('MFA-11'),
    handler: async (request) => {
      const mfaToken = request.body?.mfaToken;
      return asJson(mfaToken ? await mfa.passkeyOptions(mfaToken, clientOf(request)) : await passkeys.authenticationOptions({ purpose: 'login' }));
    },
  });

  app.route({
    ...operation('MFA-12'),
    handler: async (request, reply) => {
      const { credential, deviceInfo } = request.body;
      const { issued, knownDevice } = await mfa.passkeyLogin(credential as unknown as AuthenticationResponseJSON, clientOf(request, deviceInfo));
      const body = deliverTokens(request, reply, issued, config);
      rememberDevice(reply, knownDevice, config);
      return body;
    },
  });

  if (config.NODE_ENV !== 'production') {
    app.route({
      ...operation('MFA-13'),
      handler: async (_request, reply) =>
        reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('content-security-policy', DEV_PAGE_CSP)
          .header('cache-control', 'no-store')
          .send(DEV_PAGE_HTML),
    });
  }
};

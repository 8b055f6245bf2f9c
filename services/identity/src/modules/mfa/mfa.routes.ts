import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens, rememberDevice } from '../sessions/sessions.routes.js';
import type { MfaService, SecondFactorProof } from './mfa.service.js';

/**
 * MFA-1…MFA-5: TOTP, the second step of a login and the security overview (docs/account-security.md), registered from their
 * contract (packages/contracts/src/operations/identity/mfa.ts).
 */
export const mfaModule: FastifyPluginAsyncZod<{ mfa: MfaService; config: IdentityConfig }> = async (app, { mfa, config }) => {
  app.route({
    ...operation('MFA-1'),
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return mfa.enrol(requireCaller(request).userId);
    },
  });

  app.route({
    ...operation('MFA-2'),
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return mfa.confirm(requireCaller(request).userId, request.body.code);
    },
  });

  app.route({
    ...operation('MFA-3'),
    handler: async (request) => {
      const { code, recoveryCode } = request.body;
      return mfa.disable(requireCaller(request).userId, code !== undefined ? { code } : { recoveryCode: recoveryCode! });
    },
  });

  app.route({
    ...operation('MFA-4'),
    handler: async (request, reply) => {
      const { mfaToken, code, recoveryCode, passkey } = request.body;
      const proof: SecondFactorProof = code !== undefined ? { code } : recoveryCode !== undefined ? { recoveryCode } : { passkey: passkey as never };
      const { issued, knownDevice } = await mfa.complete(mfaToken, proof, clientOf(request));
      const body = deliverTokens(request, reply, issued, config);
      rememberDevice(reply, knownDevice, config);
      return body;
    },
  });

  app.route({
    ...operation('MFA-5'),
    handler: async (request) => {
      const view = await mfa.overview(requireCaller(request).userId);
      return {
        totp: { enabled: view.totp.enabled, enabledAt: view.totp.enabledAt?.toISOString() ?? null },
        passkeys: view.passkeys.map(passkeyRecord),
        recoveryCodesLeft: view.recoveryCodesLeft,
      };
    },
  });
};

export function passkeyRecord(p: { id: number; name: string; createdAt: Date; lastUsedAt: Date | null }) {
  return { id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null };
}

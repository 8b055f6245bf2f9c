import { LoginResponseSchema, MessageResponseSchema } from '@msp/contracts';
import { operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import { z } from 'zod';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens, rememberDevice } from '../sessions/sessions.routes.js';
import {
  CompleteMfaBodySchema,
  ConfirmTotpBodySchema,
  DisableTotpBodySchema,
  RecoveryCodesSchema,
  SecurityOverviewSchema,
  TotpEnrolmentSchema,
} from './mfa.schemas.js';
import type { MfaService, SecondFactorProof } from './mfa.service.js';

const refreshDelivery = z.object({ 'x-refresh-token-delivery': z.string().max(20).optional() });

/** MFA-1…MFA-5: TOTP, the second step of a login and the security overview (docs/account-security.md), registered from their contract. */
export const mfaModule: FastifyPluginAsyncZod<{ mfa: MfaService; config: IdentityConfig }> = async (app, { mfa, config }) => {
  app.route({
    ...operation('MFA-1'),
    schema: { response: { 200: TotpEnrolmentSchema } },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return mfa.enrol(requireCaller(request).userId);
    },
  });

  app.route({
    ...operation('MFA-2'),
    schema: {
      description: 'The first code turns two-factor sign-in on; answers ten single-use recovery codes, shown this once.',
      body: ConfirmTotpBodySchema,
      response: { 200: RecoveryCodesSchema },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return mfa.confirm(requireCaller(request).userId, request.body.code);
    },
  });

  app.route({
    ...operation('MFA-3'),
    schema: {
      description: 'Needs a current code or an unused recovery code; the recovery codes go with the factor.',
      body: DisableTotpBodySchema,
      response: { 200: MessageResponseSchema },
    },
    handler: async (request) => {
      const { code, recoveryCode } = request.body;
      return mfa.disable(requireCaller(request).userId, code !== undefined ? { code } : { recoveryCode: recoveryCode! });
    },
  });

  app.route({
    ...operation('MFA-4'),
    schema: {
      description:
        'The mfaToken of AUTH-1 (5 min, single use, same client) with one of: a TOTP code, a recovery code, or a passkey assertion for options from MFA-11. ' +
        'Answers the Login response and sets the refresh cookie like AUTH-1. Five wrong codes lock the step (429 with Retry-After, 30 s doubling up to 15 min).',
      headers: refreshDelivery,
      body: CompleteMfaBodySchema,
      response: { 200: LoginResponseSchema },
    },
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
    schema: { response: { 200: SecurityOverviewSchema } },
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

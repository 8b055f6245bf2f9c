import { LoginResponseSchema, MessageResponseSchema } from '@msp/contracts';
import { requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
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

const bearer = [{ bearerAuth: [] }];
const tags = ['Account Security'];
const refreshDelivery = z.object({ 'x-refresh-token-delivery': z.string().max(20).optional() });

/** MFA-1…MFA-5: TOTP, the second step of a login and the security overview (docs/account-security.md). */
export const mfaModule: FastifyPluginAsyncZod<{ mfa: MfaService; config: IdentityConfig }> = async (app, { mfa, config }) => {
  app.post(
    '/users/me/mfa/totp',
    { schema: { operationId: 'MFA-1', summary: 'Start TOTP enrolment', tags, security: bearer, response: { 200: TotpEnrolmentSchema } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return mfa.enrol(requireCaller(request).userId);
    },
  );

  app.post(
    '/users/me/mfa/totp/confirm',
    {
      schema: {
        operationId: 'MFA-2',
        summary: 'Confirm TOTP enrolment',
        description: 'The first code turns two-factor sign-in on; answers ten single-use recovery codes, shown this once.',
        tags,
        security: bearer,
        body: ConfirmTotpBodySchema,
        response: { 200: RecoveryCodesSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return mfa.confirm(requireCaller(request).userId, request.body.code);
    },
  );

  app.delete(
    '/users/me/mfa/totp',
    {
      schema: {
        operationId: 'MFA-3',
        summary: 'Turn TOTP off',
        description: 'Needs a current code or an unused recovery code; the recovery codes go with the factor.',
        tags,
        security: bearer,
        body: DisableTotpBodySchema,
        response: { 200: MessageResponseSchema },
      },
    },
    async (request) => {
      const { code, recoveryCode } = request.body;
      return mfa.disable(requireCaller(request).userId, code !== undefined ? { code } : { recoveryCode: recoveryCode! });
    },
  );

  app.post(
    '/auth/mfa',
    {
      schema: {
        operationId: 'MFA-4',
        summary: 'Complete a two-factor login',
        description:
          'The mfaToken of AUTH-1 (5 min, single use, same client) with one of: a TOTP code, a recovery code, or a passkey assertion for options from MFA-11. ' +
          'Answers the Login response and sets the refresh cookie like AUTH-1. Five wrong codes lock the step (429 with Retry-After, 30 s doubling up to 15 min).',
        tags: ['Authentication'],
        headers: refreshDelivery,
        body: CompleteMfaBodySchema,
        response: { 200: LoginResponseSchema },
      },
    },
    async (request, reply) => {
      const { mfaToken, code, recoveryCode, passkey } = request.body;
      const proof: SecondFactorProof = code !== undefined ? { code } : recoveryCode !== undefined ? { recoveryCode } : { passkey: passkey as never };
      const { issued, knownDevice } = await mfa.complete(mfaToken, proof, clientOf(request));
      const body = deliverTokens(request, reply, issued, config);
      rememberDevice(reply, knownDevice, config);
      return body;
    },
  );

  app.get(
    '/users/me/security',
    { schema: { operationId: 'MFA-5', summary: 'Security overview', tags, security: bearer, response: { 200: SecurityOverviewSchema } } },
    async (request) => {
      const view = await mfa.overview(requireCaller(request).userId);
      return {
        totp: { enabled: view.totp.enabled, enabledAt: view.totp.enabledAt?.toISOString() ?? null },
        passkeys: view.passkeys.map(passkeyRecord),
        recoveryCodesLeft: view.recoveryCodesLeft,
      };
    },
  );
};

export function passkeyRecord(p: { id: number; name: string; createdAt: Date; lastUsedAt: Date | null }) {
  return { id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null };
}

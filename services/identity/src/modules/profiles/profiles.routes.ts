import { callerFrom, operation, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens } from '../sessions/sessions.routes.js';
import type { ProfilesService } from './profiles.service.js';

/** USR-1…USR-8, USR-14, USR-15, registered from their contract (packages/contracts/src/operations/identity/profiles.ts). */
export const profilesModule: FastifyPluginAsyncZod<{ profiles: ProfilesService; config: IdentityConfig }> = async (app, { profiles, config }) => {
  app.route({
    ...operation('USR-1'),
    handler: async (request) => profiles.me(requireCaller(request).userId),
  });

  app.route({
    ...operation('USR-2'),
    handler: async (request) => profiles.update(requireCaller(request).userId, request.body, String(request.id)),
  });

  app.route({
    ...operation('USR-3'),
    handler: async (request) => profiles.privacy(requireCaller(request).userId),
  });

  app.route({
    ...operation('USR-4'),
    handler: async (request) => profiles.updatePrivacy(requireCaller(request).userId, request.body, String(request.id)),
  });

  app.route({
    ...operation('USR-5'),
    handler: async (request, reply) => {
      const caller = requireCaller(request);
      const newTier = (request.body.newTier ?? request.body.targetTier)!;
      const { tier, issued } = await profiles.updateTier(caller, newTier, clientOf(request, request.body.deviceInfo), String(request.id));
      const login = deliverTokens(request, reply, issued, config);
      return { tier, message: `Your account tier is now ${tier}.`, accessToken: login.accessToken, expiresIn: login.expiresIn, login };
    },
  });

  app.route({
    ...operation('USR-6'),
    handler: async (request) => profiles.updateRole(requireCaller(request).userId, request.body.newRole, String(request.id)),
  });

  app.route({
    ...operation('USR-7'),
    handler: async (request) => profiles.updatePermalink(requireCaller(request).userId, request.body.permalink, String(request.id)),
  });

  app.route({
    ...operation('USR-8'),
    handler: async (request) => profiles.updateSocialLinks(requireCaller(request).userId, request.body, String(request.id)),
  });

  app.route({
    ...operation('USR-14'),
    handler: async (request) => {
      const ref = request.params.userId;
      return profiles.publicProfile(/^\d+$/.test(ref) ? { id: Number(ref) } : { username: ref.toLowerCase() }, callerFrom(request));
    },
  });

  app.route({
    ...operation('USR-15'),
    handler: async (request) => profiles.publicProfile({ username: request.params.username.toLowerCase() }, callerFrom(request)),
  });
};

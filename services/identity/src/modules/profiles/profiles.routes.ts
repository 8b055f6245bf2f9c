import { MeProfileSchema, PrivacySettingsSchema, PublicProfileSchema, SocialLinksSchema, TierChangeResultSchema } from '@msp/contracts';
import { callerFrom, requireCaller, type FastifyPluginAsyncZod } from '@msp/http';
import type { IdentityConfig } from '../../config.js';
import { clientOf, deliverTokens } from '../sessions/sessions.routes.js';
import {
  PermalinkBodySchema,
  PrivacyBodySchema,
  RoleBodySchema,
  SocialLinksBodySchema,
  TierBodySchema,
  UpdateProfileBodySchema,
  UserRefParamsSchema,
  UsernameParamsSchema,
} from './profiles.schemas.js';
import type { ProfilesService } from './profiles.service.js';

const bearer = [{ bearerAuth: [] }];

export const profilesModule: FastifyPluginAsyncZod<{ profiles: ProfilesService; config: IdentityConfig }> = async (app, { profiles, config }) => {
  app.get(
    '/users/me',
    { schema: { operationId: 'USR-1', summary: 'Get current user profile', tags: ['Users'], security: bearer, response: { 200: MeProfileSchema } } },
    async (request) => profiles.me(requireCaller(request).userId),
  );

  app.patch(
    '/users/me',
    {
      schema: {
        operationId: 'USR-2',
        summary: 'Update current user profile',
        tags: ['Users'],
        security: bearer,
        body: UpdateProfileBodySchema,
        response: { 200: MeProfileSchema },
      },
    },
    async (request) => profiles.update(requireCaller(request).userId, request.body, String(request.id)),
  );

  app.get(
    '/users/me/privacy',
    { schema: { operationId: 'USR-3', summary: 'Get privacy settings', tags: ['Users'], security: bearer, response: { 200: PrivacySettingsSchema } } },
    async (request) => profiles.privacy(requireCaller(request).userId),
  );

  app.patch(
    '/users/me/privacy',
    {
      schema: {
        operationId: 'USR-4',
        summary: 'Update privacy settings',
        tags: ['Users'],
        security: bearer,
        body: PrivacyBodySchema,
        response: { 200: PrivacySettingsSchema },
      },
    },
    async (request) => profiles.updatePrivacy(requireCaller(request).userId, request.body, String(request.id)),
  );

  app.patch(
    '/users/me/tier',
    {
      schema: {
        operationId: 'USR-5',
        summary: 'Update account tier',
        tags: ['Users'],
        security: bearer,
        body: TierBodySchema,
        response: { 200: TierChangeResultSchema },
      },
    },
    async (request, reply) => {
      const caller = requireCaller(request);
      const newTier = (request.body.newTier ?? request.body.targetTier)!;
      const { tier, issued } = await profiles.updateTier(caller, newTier, clientOf(request, request.body.deviceInfo), String(request.id));
      const login = deliverTokens(request, reply, issued, config);
      return { tier, message: `Your account tier is now ${tier}.`, accessToken: login.accessToken, expiresIn: login.expiresIn, login };
    },
  );

  app.patch(
    '/users/me/role',
    {
      schema: {
        operationId: 'USR-6',
        summary: 'Update user role',
        tags: ['Users'],
        security: bearer,
        body: RoleBodySchema,
        response: { 200: MeProfileSchema },
      },
    },
    async (request) => profiles.updateRole(requireCaller(request).userId, request.body.newRole, String(request.id)),
  );

  app.patch(
    '/users/me/permalink',
    {
      schema: {
        operationId: 'USR-7',
        summary: 'Update user permalink',
        tags: ['Users'],
        security: bearer,
        body: PermalinkBodySchema,
        response: { 200: MeProfileSchema },
      },
    },
    async (request) => profiles.updatePermalink(requireCaller(request).userId, request.body.permalink, String(request.id)),
  );

  app.patch(
    '/users/me/social-links',
    {
      schema: {
        operationId: 'USR-8',
        summary: 'Update social links',
        tags: ['Users'],
        security: bearer,
        body: SocialLinksBodySchema,
        response: { 200: SocialLinksSchema },
      },
    },
    async (request) => profiles.updateSocialLinks(requireCaller(request).userId, request.body, String(request.id)),
  );

  app.get(
    '/users/:userId',
    {
      schema: {
        operationId: 'USR-14',
        summary: 'Public profile by user id',
        tags: ['Users'],
        params: UserRefParamsSchema,
        response: { 200: PublicProfileSchema },
      },
    },
    async (request) => {
      const ref = request.params.userId;
      return profiles.publicProfile(/^\d+$/.test(ref) ? { id: Number(ref) } : { username: ref.toLowerCase() }, callerFrom(request));
    },
  );

  app.get(
    '/users/username/:username',
    {
      schema: {
        operationId: 'USR-15',
        summary: 'Public profile by username',
        tags: ['Users'],
        params: UsernameParamsSchema,
        response: { 200: PublicProfileSchema },
      },
    },
    async (request) => profiles.publicProfile({ username: request.params.username.toLowerCase() }, callerFrom(request)),
  );
};

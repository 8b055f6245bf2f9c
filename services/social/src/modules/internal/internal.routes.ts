import {
  EngagementRequestSchema,
  EngagementResponseSchema,
  INTERNAL_ROUTES,
  RelationshipsRequestSchema,
  RelationshipsResponseSchema,
  type RelationshipsResponse,
} from '@msp/contracts';
import type { FastifyPluginAsyncZod } from '@msp/http';
import type { EngagementService } from '../engagement/engagement.service.js';
import type { UsersRepository } from '../users/users.repository.js';

/**
 * Service-to-service batch reads (INTERNAL_ROUTES): one call per page of items, one indexed query
 * per call. Not under /api and hidden from OpenAPI, so the gateway never exposes them.
 */
export const internalModule: FastifyPluginAsyncZod<{ engagement: EngagementService; users: UsersRepository }> = async (
  app,
  { engagement, users },
) => {
  app.post(
    INTERNAL_ROUTES.relationships,
    { schema: { hide: true, body: RelationshipsRequestSchema, response: { 200: RelationshipsResponseSchema } } },
    async (request): Promise<RelationshipsResponse> => {
      const ids = [...new Set(request.body.userIds)];
      if (ids.length === 0) return { items: [] };
      return { items: await users.relationships(request.body.viewerId, ids) };
    },
  );
  app.post(
    INTERNAL_ROUTES.engagement,
    { schema: { hide: true, body: EngagementRequestSchema, response: { 200: EngagementResponseSchema } } },
    async (request) => {
      const userIds = [...new Set(request.body.userIds)].filter((id) => id !== request.body.viewerId);
      const [flags, related] = await Promise.all([
        engagement.flags(request.body),
        userIds.length > 0 ? users.relationships(request.body.viewerId, userIds) : Promise.resolve([]),
      ]);
      return { ...flags, users: related };
    },
  );
};

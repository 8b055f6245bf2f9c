import type { FastifyPluginAsync } from 'fastify';
import type { SigningKeyService } from './keys.service.js';

/** JWKS for the gateway and services (internal; not under /api). */
export const keysModule: FastifyPluginAsync<{ keys: SigningKeyService }> = async (app, { keys }) => {
  app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=60');
    return keys.jwks();
  });
};

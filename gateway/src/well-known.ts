import type { FastifyInstance } from 'fastify';
import { sendError } from '@msp/errors';

const PATH = '/.well-known/oauth-authorization-server';
const FETCH_TIMEOUT_MS = 2000;
const CACHE_MS = 60_000;

/**
 * RFC 8414 metadata at the origin's root, where OAuth clients look for an issuer without a path:
 * identity's document (APP-16, also served at `/api/.well-known/...`), cached for a minute.
 */
export function registerOAuthMetadata(app: FastifyInstance, identityUrl: string): void {
  let cached: { body: unknown; expiresAt: number } | null = null;
  app.get(PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!cached || cached.expiresAt <= Date.now()) {
      try {
        const response = await fetch(`${identityUrl.replace(/\/+$/, '')}/api${PATH}`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!response.ok) throw new Error(`identity answered ${response.status}`);
        cached = { body: await response.json(), expiresAt: Date.now() + CACHE_MS };
      } catch (err) {
        request.log.warn({ err }, 'OAuth metadata unavailable');
        reply.header('retry-after', '5');
        return sendError(request, reply, 503, 'SERVICE_UNAVAILABLE', 'The authorization server metadata is unavailable right now.');
      }
    }
    reply.header('cache-control', 'public, max-age=300');
    return cached.body;
  });
}

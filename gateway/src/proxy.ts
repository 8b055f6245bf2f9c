import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import replyFrom from '@fastify/reply-from';
import type { IncomingHttpHeaders } from 'node:http';
import type { Redis } from 'ioredis';
import type { RouteContract } from '@msp/contracts';
import { sendError } from '@msp/errors';
import { authenticate, identityHeaders, IDENTITY_HEADER_NAMES, registerJwt, type Caller } from './auth.js';
import { bodyLimitFor, countingStream, declaredTooLarge } from './body-limit.js';
import type { GatewayConfig } from './config.js';
import type { JwksKeyStore } from '@msp/http';
import type { RouteTable, ServiceUrls } from './route-table.js';
import { onUpstreamError } from './upstream-errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API.md operation this request resolved to (set by the proxy's onRequest hook). */
    gatewayRoute: RouteContract | null;
    /** The verified caller, or null when anonymous. */
    caller: Caller | null;
  }
}

export interface ProxyOptions {
  config: GatewayConfig;
  redis: Redis;
  keyStore: JwksKeyStore;
  routeTable: RouteTable;
  serviceUrls: ServiceUrls;
}

/** Unreachable hosts must fail fast: a stopped service answers 503 well within 5 s. */
export const CONNECT_TIMEOUT_MS = 3000;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Headers the services receive: the client's, minus forged identity, plus the verified one. */
export function forwardHeaders(request: FastifyRequest, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { ...headers };
  for (const name of IDENTITY_HEADER_NAMES) delete out[name];
  if (request.caller) Object.assign(out, identityHeaders(request.caller));
  out['x-request-id'] = String(request.id);
  // The gateway is the trust boundary: services see the client address it resolved, not a chain
  // the client could have written itself.
  out['x-forwarded-for'] = request.ip;
  out['x-forwarded-proto'] = request.protocol;
  out['x-forwarded-host'] = request.host;
  return out;
}

/**
 * Every `/api/**` operation of API.md: route lookup (404/405), body limit, auth, then a streaming
 * proxy to the owner service with the path unchanged. Encapsulated so that its raw-body parser
 * and hooks touch nothing else.
 */
export const proxyPlugin: FastifyPluginAsync<ProxyOptions> = async (app, options) => {
  const { config, redis, keyStore, routeTable, serviceUrls } = options;

  await app.register(replyFrom, {
    undici: { connections: 128, pipelining: 1, connect: { timeout: CONNECT_TIMEOUT_MS } },
    disableRequestLogging: true,
  });
  await registerJwt(app, keyStore, config.JWT_ISSUER);
  app.decorateRequest('gatewayRoute', null);
  app.decorateRequest('caller', null);

  // Bodies are never parsed here: multipart uploads stream through and SUB-5 webhook bytes reach
  // billing exactly as sent (its signature covers the raw bytes).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    const limit = bodyLimitFor(request.gatewayRoute?.body ?? 'json', config.AUDIO_MAX_BYTES);
    done(null, countingStream(payload, limit));
  });

  app.addHook('onRequest', async (request, reply) => {
    const match = routeTable.match(request.method, request.url);
    if (match.kind === 'method-not-allowed') {
      reply.header('allow', match.allow.join(', '));
      return sendError(request, reply, 405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${match.allow.join(', ')}.`);
    }
    if (match.kind !== 'route') {
      return sendError(request, reply, 404, 'ROUTE_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`);
    }
    const route = match.route;
    request.gatewayRoute = route;

    if (BODY_METHODS.has(request.method) && declaredTooLarge(request.headers['content-length'], bodyLimitFor(route.body, config.AUDIO_MAX_BYTES))) {
      reply.header('connection', 'close');
      return sendError(request, reply, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
    }

    const result = await authenticate(request, route.auth, { redis, userLimitPerMinute: config.RATE_LIMIT_USER_PER_MINUTE });
    if (!result.ok) {
      if (result.headers) reply.headers(result.headers);
      return sendError(request, reply, result.status, result.code, result.message);
    }
    request.caller = result.caller;
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/api/*',
    exposeHeadRoute: false,
    handler(request, reply) {
      const route = request.gatewayRoute;
      if (!route) return sendError(request, reply, 404, 'ROUTE_NOT_FOUND');
      const base = serviceUrls[route.owner].replace(/\/+$/, '');
      return reply.from(`${base}${request.url}`, {
        timeout: route.body === 'upload' ? config.UPLOAD_TIMEOUT_MS : config.UPSTREAM_TIMEOUT_MS,
        // reply-from retries GETs on a 503 answer by default; the service's answer must pass through.
        retryDelay: () => null,
        rewriteRequestHeaders: (req, headers) => forwardHeaders(req as FastifyRequest, headers as IncomingHttpHeaders),
        onError: onUpstreamError,
      });
    },
  });
};

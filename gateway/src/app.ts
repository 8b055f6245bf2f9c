import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, sendError } from '@msp/errors';
import {
  checkPath,
  checkUrl,
  guardBodyIdle,
  isDraining,
  registerShutdownAnswers,
  requestIdFrom,
  safeQuerystringParser,
  SERVER_TIMEOUTS,
  SHUTDOWN_SERVER_OPTIONS,
} from '@msp/http';
import { IDENTITY_HEADER_NAMES } from './auth.js';
import type { GatewayConfig } from './config.js';
import { registerDocs } from './docs.js';
import { registerOAuthMetadata } from './well-known.js';
import { registerHealth } from './health.js';
import { logDestination, registerMetrics } from '@msp/http';
import { createJwksKeyStore } from '@msp/http';
import { createOpenApiProvider } from './openapi.js';
import { assertionKeys, PROXY_ROUTE_URL, proxyPlugin, upstreamsOf } from './proxy.js';
import { createFastLane } from './fast-lane.js';
import { createUpstreamPool } from './upstream.js';
import { tokenVerifier } from './auth.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gateLimits, passGate } from './gate.js';
import { connectRedis, createRedis } from './redis.js';
import { buildRouteTable, type RouteTable, type ServiceUrls } from './route-table.js';
import { registerRequestLog } from './request-log.js';
import { registerRequestTrace } from './request-trace.js';
import { computeSecurityHeaders, CORS_EXPOSED_HEADERS, registerSecurityHeaders } from './security-headers.js';
import { registerWebsocketProxy } from './websocket.js';

export type { GatewayConfig } from './config.js';
export { loadGatewayConfig, requiredEnv } from './config.js';

export interface BuildGatewayOptions {
  /** Request logs; pass `false` in tests. */
  logger?: boolean;
}

const REDIS_CONNECT_WAIT_MS = 2000;

export function serviceUrlsOf(config: GatewayConfig): ServiceUrls {
  return {
    identity: config.IDENTITY_URL,
    catalog: config.CATALOG_URL,
    'media-processing': config.MEDIA_PROCESSING_URL,
    social: config.SOCIAL_URL,
    messaging: config.MESSAGING_URL,
    notification: config.NOTIFICATION_URL,
    billing: config.BILLING_URL,
  };
}

/** 404 ROUTE_NOT_FOUND, or 405 when the path exists under other methods (e.g. TRACE, or OPTIONS without CORS). */
function notFound(routeTable: RouteTable) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const match = request.url.startsWith('/api/') ? routeTable.match(request.method, request.url) : { kind: 'not-found' as const };
    if (match.kind === 'method-not-allowed') {
      reply.header('allow', match.allow.join(', '));
      return sendError(request, reply, 405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${match.allow.join(', ')}.`);
    }
    return sendError(request, reply, 404, 'ROUTE_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`);
  };
}

/**
 * The public entry of the platform (docs/api.md "Gateway"), built but not listening. Request bodies are
 * never parsed (so not built on createHttpApp); request ids, error shape and /health, /ready
 * mirror the services' HTTP shell.
 */
export async function buildGateway(config: GatewayConfig, options: BuildGatewayOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // No mixin: a request's lines get `traceId`/`spanId` from its logger's bindings (request-trace.ts).
    logger: options.logger === false ? false : { level: config.LOG_LEVEL, base: { service: 'gateway' }, stream: logDestination(config.LOG_BUFFER_BYTES) },
    genReqId: requestIdFrom,
    // One line per request instead of Fastify's two (request-log.ts).
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    // Headers within 15 s, a body that stops for BODY_IDLE_TIMEOUT_MS ends (hook below), a whole
    // request within the upload timeout (packages/http timeouts.ts; figures in the gateway README).
    ...SERVER_TIMEOUTS,
    requestTimeout: Math.max(config.UPLOAD_TIMEOUT_MS, SERVER_TIMEOUTS.http.headersTimeout + 1000),
    // Requests during close get a 503 ErrorResponse, not Fastify's bare one (packages/http shutdown.ts).
    ...SHUTDOWN_SERVER_OPTIONS,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: { maxParamLength: 500, querystringParser: safeQuerystringParser },
  });

  const routeTable = buildRouteTable();
  const pool = createUpstreamPool();
  const serviceUrls = serviceUrlsOf(config);
  const upstreams = upstreamsOf(serviceUrls);
  const keys = assertionKeys(config.GATEWAY_SIGNING_KEY);
  const securityHeaders = computeSecurityHeaders();
  const limits = gateLimits(config);
  const redis = createRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  const keyStore = createJwksKeyStore({
    url: config.JWKS_URL,
    onRefreshError: (err) => app.log.warn({ err }, 'JWKS refresh failed; the cached keys keep verifying'),
  });
  const verifyToken = tokenVerifier(keyStore, config.JWT_ISSUER);
  // ioredis reconnects by itself; without a listener its errors would be unhandled. Logged at
  // most every 10 s so that an outage does not flood the logs.
  let lastRedisErrorLog = 0;
  redis.on('error', (err: Error) => {
    if (Date.now() - lastRedisErrorLog < 10_000) return;
    lastRedisErrorLog = Date.now();
    app.log.warn({ err }, 'Redis connection error');
  });

  // First: every request has its span (trace ids in logs; the proxy carries the context on).
  registerRequestTrace(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFound(routeTable));
  app.addHook('onReady', async () => {
    if (!(await connectRedis(redis, REDIS_CONNECT_WAIT_MS))) {
      app.log.warn('Redis not reachable at start: bearer routes answer 503 until it is');
    }
  });
  app.addHook('onClose', async () => {
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
    // The server has drained its requests; whatever the pool still holds is cut.
    await pool.destroy();
  });

  // CORS first: its headers must be on every answer, the gateway's own errors included, so that
  // a browser can read a 401 or 429.
  await app.register(cors, {
    origin: config.CORS_ORIGINS,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: 600,
  });
  registerSecurityHeaders(app, securityHeaders);
  registerRequestLog(app);
  // From the shutdown signal on, /ready fails and answers close their connection; once the
  // listener closes, a request still arriving is a 503 ErrorResponse with CORS and security headers
  // (the hooks above) and without a Redis round trip (the hook below).
  registerShutdownAnswers(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    guardBodyIdle(request, config.BODY_IDLE_TIMEOUT_MS);
    // Identity headers are the gateway's word only; whatever a client sent is dropped on every
    // route (the proxies add the verified ones back).
    for (const name of IDENTITY_HEADER_NAMES) delete request.raw.headers[name];
    if (!request.url.startsWith('/api/') && request.url !== '/api') return;
    // The proxy's own hook counts its requests together with the caller's checks (one Redis round
    // trip per request, gate.ts); here only the gateway's other /api routes (health, docs, OpenAPI,
    // websocket upgrade) and unknown paths.
    if (request.routeOptions.url === PROXY_ROUTE_URL) return;
    const answer = await passGate(redis, request.ip, null, limits);
    if (answer === null) {
      request.log.warn('per-client rate limit skipped: Redis unavailable');
      return;
    }
    if (!answer.client.allowed) {
      reply.header('retry-after', String(answer.client.retryAfterSeconds));
      return sendError(request, reply, 429, 'RATE_LIMITED', 'Too many requests; try again later.');
    }
    // Bad query encodings, NUL/unpaired surrogates in the path or query, multipart without a
    // boundary: 400 here, before anything is forwarded (packages/http input.ts).
    checkUrl(request);
    checkPath(request.url);
  });

  registerHealth(app, redis, serviceUrls);
  registerOAuthMetadata(app, serviceUrls.identity);
  registerMetrics(app, 'gateway', { token: config.METRICS_TOKEN ?? null });
  await registerDocs(app, createOpenApiProvider({ serviceUrls, publicBaseUrl: config.PUBLIC_BASE_URL }));
  await registerWebsocketProxy(app, config, { redis, verifyToken });
  await app.register(proxyPlugin, { config, redis, verifyToken, routeTable, pool, upstreams, keys });

  if (config.FAST_LANE) {
    // From the shutdown signal on, Fastify answers everything (Connection: close, then the 503).
    const lane = createFastLane({
      config,
      redis,
      verifyToken,
      routeTable,
      pool,
      upstreams,
      keys,
      securityHeaders,
      log: app.log,
      closing: () => isDraining(app),
    });
    // Node's `request` event: the lane first, Fastify's handler (`app.routing`, looked up on each
    // request so that a test can count what reaches Fastify) for whatever the lane leaves.
    const [fastify] = app.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    if (fastify !== app.routing) throw new Error("Fastify's request listener is not app.routing");
    app.server.removeListener('request', fastify);
    app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!lane(req, res)) app.routing(req, res);
    });
  }
  return app;
}

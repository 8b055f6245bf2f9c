import type { FastifyPluginAsync } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Redis } from 'ioredis';
import type { RouteContract } from '@msp/contracts';
import { AppError, sendError } from '@msp/errors';
import { identityHeaders, IDENTITY_HEADER_NAMES, verifyCaller, type AuthResult, type Caller, type VerifyToken } from './auth.js';
import { admitCaller, gateLimits, passGate } from './gate.js';
import { appRateLimitHeaders } from './rate-limit.js';
import { checkPath, checkUrl } from '@msp/http';
import { BodyTooLargeError, bodyPolicy, collectBody, countingStream, declaredTooLarge } from './body-limit.js';
import { ASSERTION_HEADER, CLIENT_IP_HEADER, deriveAssertionKey, DEV_GATEWAY_SIGNING_KEY, SERVICE_TOKEN_HEADER, signAssertion } from '@msp/http';
import { SERVICE_NAMES, type ServiceName } from '@msp/contracts';
import type { GatewayConfig } from './config.js';
import type { RouteTable, ServiceUrls } from './route-table.js';
import { forward, HOP_BY_HOP, ReplySink, upstreamOf, type Upstream, type UpstreamPool } from './upstream.js';
import { currentTraceCarrier, requestTraceCarrier, type RequestSpan } from '@msp/telemetry';

declare module 'fastify' {
  interface FastifyRequest {
    /** The contract operation (packages/contracts ROUTES) this request resolved to (set by the proxy's onRequest hook). */
    gatewayRoute: RouteContract | null;
    /** The verified caller, or null when anonymous. */
    caller: Caller | null;
  }
}

export interface ProxyOptions {
  config: GatewayConfig;
  redis: Redis;
  verifyToken: VerifyToken;
  routeTable: RouteTable;
  /** The connections to the services (`createUpstreamPool`), destroyed by their owner. */
  pool: UpstreamPool;
  upstreams: Record<ServiceName, Upstream>;
  /** The assertion key of each owner service (`assertionKeys`). */
  keys: Record<ServiceName, string>;
}

/** The services' addresses (`upstreamOf` of each URL). */
export function upstreamsOf(serviceUrls: ServiceUrls): Record<ServiceName, Upstream> {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, upstreamOf(serviceUrls[name])])) as Record<ServiceName, Upstream>;
}

/** What `forwardHeaders` reads of a request: a Fastify request, or the fast lane's (fast-lane.ts). */
export interface ForwardedRequest {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  /** The client address (X-Forwarded-For walked when a proxy is trusted); may be a getter. */
  readonly ip: string;
  readonly protocol: string;
  readonly host: string;
  readonly caller: Caller | null;
  readonly traceSpan: RequestSpan | null;
}

/** The catch-all route of every contract operation (the root hook leaves its rate limit to this plugin). */
export const PROXY_ROUTE_URL = '/api/*';

export { CONNECT_TIMEOUT_MS } from './upstream.js';

const closeAfterReply = new WeakSet<object>();

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Headers only the gateway (or a service, for internal calls) may write; dropped from clients. */
const TRUST_HEADERS = [...IDENTITY_HEADER_NAMES, ASSERTION_HEADER, CLIENT_IP_HEADER, SERVICE_TOKEN_HEADER];
/**
 * The client's trace context was read into the gateway's server span; the services get that span's
 * context instead (`forwardHeaders`), so the proxied call needs no client span of its own.
 */
const TRACE_HEADERS = ['traceparent', 'tracestate'];
const DROPPED_HEADERS = new Set([...TRUST_HEADERS, ...TRACE_HEADERS]);

/** The key the gateway signs assertions with for each owner service (derived from its master key). */
export function assertionKeys(masterKey: string | undefined): Record<ServiceName, string> {
  const master = masterKey ?? DEV_GATEWAY_SIGNING_KEY;
  return Object.fromEntries(SERVICE_NAMES.map((s) => [s, deriveAssertionKey(master, s)])) as Record<ServiceName, string>;
}

/**
 * Headers the services receive: the client's, minus anything claiming trust and the hop-by-hop ones
 * (with the names its Connection header lists, RFC 9110 §7.6.1), plus the verified caller and client
 * address, signed for the owner service (X-Gateway-Assertion). A new object, the caller's to complete.
 */
export function forwardHeaders(request: ForwardedRequest, headers: IncomingHttpHeaders, signingKey?: string): IncomingHttpHeaders {
  // A new object with only the headers that pass (deleting from a copy would turn it into a slow
  // dictionary that undici then walks).
  const out: IncomingHttpHeaders = {};
  const listed = typeof headers.connection === 'string' ? headers.connection.toLowerCase().split(',') : [];
  for (const name of Object.keys(headers)) {
    if (DROPPED_HEADERS.has(name) || HOP_BY_HOP.has(name) || (listed.length > 0 && listed.some((entry) => entry.trim() === name))) continue;
    out[name] = headers[name];
  }
  // One trace across the hop: the gateway's request span is the parent of the service's.
  const trace = request.traceSpan ? requestTraceCarrier(request.traceSpan) : currentTraceCarrier();
  if (trace.traceparent) out.traceparent = trace.traceparent;
  if (trace.tracestate) out.tracestate = trace.tracestate;
  if (request.caller) Object.assign(out, identityHeaders(request.caller));
  out['x-request-id'] = String(request.id);
  // A getter that walks X-Forwarded-For when a proxy is trusted: read once.
  const ip = request.ip;
  out[CLIENT_IP_HEADER] = ip;
  if (signingKey) {
    out[ASSERTION_HEADER] = signAssertion(signingKey, { method: request.method, url: request.url, requestId: String(request.id), headers: out });
  }
  // The gateway is the trust boundary: services see the client address it resolved, not a chain
  // the client could have written itself.
  out['x-forwarded-for'] = ip;
  out['x-forwarded-proto'] = request.protocol;
  out['x-forwarded-host'] = request.host;
  return out;
}

/**
 * Every `/api/**` operation of the contract (docs/api.md): route lookup (404/405), body limit, auth, then a streaming
 * proxy to the owner service with the path unchanged. Encapsulated so that its raw-body parser
 * and hooks touch nothing else.
 */
export const proxyPlugin: FastifyPluginAsync<ProxyOptions> = async (app, options) => {
  const { config, redis, verifyToken, routeTable, pool, upstreams, keys } = options;
  app.decorateRequest('gatewayRoute', null);
  app.decorateRequest('caller', null);

  // Bodies are never parsed here: multipart uploads stream through and SUB-5 webhook bytes reach
  // billing exactly as sent (its signature covers the raw bytes).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    const policy = bodyPolicy(request.gatewayRoute?.bodyKind ?? 'json', request.headers['content-type'], config.AUDIO_MAX_BYTES);
    if (policy.stream) {
      done(null, countingStream(payload, policy.limit));
      return;
    }
    // Small bodies are read whole here, so a client that stops mid-body never holds a connection
    // to a service, and an oversized one is refused with 413 before anything is forwarded.
    collectBody(payload, policy.limit).then(
      (body) => done(null, body),
      (err: Error) => {
        // The rest of an oversized body is not worth reading: answer and close the connection.
        closeAfterReply.add(request.raw);
        done(err instanceof BodyTooLargeError ? new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.') : err, undefined);
      },
    );
  });

  app.addHook('onSend', async (request, reply) => {
    if (closeAfterReply.has(request.raw)) reply.header('connection', 'close');
  });

  const limits = gateLimits(config);

  // The order of answers is that of the checks: 429 per client → 400 bad URL → 404/405 → 413 →
  // 401/503 token → 401/403 revocation and locks → 403 admin → 429 per user. The token is verified
  // (CPU only; cached until expiry) before the request's ONE Redis round trip, so that the caller's
  // revocation keys and user counter ride with the client counter (gate.ts).
  app.addHook('onRequest', async (request, reply) => {
    const match = routeTable.match(request.method, request.url);
    const route = match.kind === 'route' ? match.route : null;
    const verified: AuthResult = route ? await verifyCaller(request.headers.authorization, route.auth, verifyToken, request.log) : { ok: true, caller: null };
    const caller = verified.ok ? verified.caller : null;
    const answer = await passGate(redis, request.ip, caller, limits, route?.id);
    // Every answer to an app's token says where its quotas stand (docs/developer-platform.md "Quotas").
    if (caller?.app) reply.headers(appRateLimitHeaders(limits.appQuota, answer?.caller?.quota));
    if (answer === null) {
      request.log.warn('per-client rate limit skipped: Redis unavailable');
    } else if (!answer.client.allowed) {
      reply.header('retry-after', String(answer.client.retryAfterSeconds));
      return sendError(request, reply, 429, 'RATE_LIMITED', 'Too many requests; try again later.');
    }
    // Bad query encodings, NUL/unpaired surrogates in the path or query: 400 here, before anything
    // is forwarded (packages/http input.ts).
    checkUrl(request);
    checkPath(request.url);

    if (match.kind === 'method-not-allowed') {
      reply.header('allow', match.allow.join(', '));
      return sendError(request, reply, 405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${match.allow.join(', ')}.`);
    }
    if (!route) {
      return sendError(request, reply, 404, 'ROUTE_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`);
    }
    request.gatewayRoute = route;

    if (
      BODY_METHODS.has(request.method) &&
      declaredTooLarge(request.headers['content-length'], bodyPolicy(route.bodyKind, request.headers['content-type'], config.AUDIO_MAX_BYTES).limit)
    ) {
      reply.header('connection', 'close');
      return sendError(request, reply, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
    }

    const result = verified.ok && verified.caller ? admitCaller(route, verified.caller, answer) : verified;
    if (!result.ok) {
      if (result.headers) reply.headers(result.headers);
      return sendError(request, reply, result.status, result.code, result.message);
    }
    request.caller = result.caller;
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: PROXY_ROUTE_URL,
    exposeHeadRoute: false,
    handler(request, reply) {
      const route = request.gatewayRoute;
      if (!route) return sendError(request, reply, 404, 'ROUTE_NOT_FOUND');
      const call = {
        upstream: upstreams[route.owner],
        headers: forwardHeaders(request, request.headers, keys[route.owner]),
        // A body read whole goes on as the same bytes; an upload streams through.
        body: Buffer.isBuffer(request.body) || request.body instanceof Readable ? request.body : undefined,
        timeoutMs: route.bodyKind === 'upload' ? config.UPLOAD_TIMEOUT_MS : config.UPSTREAM_TIMEOUT_MS,
      };
      forward(pool, request.method, request.url, call, new ReplySink(request, reply));
      return reply;
    },
  });
};

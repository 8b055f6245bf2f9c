import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import type { IncomingHttpHeaders } from 'node:http';
import type { Redis } from 'ioredis';
import { REVOCATION_KEYS } from '@msp/contracts';
import { sendError } from '@msp/errors';
import { verifyCaller, type VerifyToken } from './auth.js';
import type { GatewayConfig } from './config.js';
import { CONNECT_TIMEOUT_MS, forwardHeaders } from './proxy.js';
import { onUpstreamError } from './upstream-errors.js';

/** Headers of the upstream websocket handshake: no client identity claims, only traceability. */
function wsHandshakeHeaders(headers: Record<string, string>, request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = { ...headers, 'x-request-id': String(request.id), 'x-forwarded-for': request.ip };
  if (typeof request.headers.cookie === 'string') out.cookie = request.headers.cookie;
  if (typeof request.headers['user-agent'] === 'string') out['user-agent'] = request.headers['user-agent'];
  return out;
}

/** What the upgrade's app check needs (the gateway's Redis and token verifier). */
export interface WebsocketGate {
  redis: Redis;
  verifyToken: VerifyToken;
}

/**
 * An upgrade that carries an app's token in Authorization (server-side STOMP clients can) is
 * refused at once (401) while the app is suspended (REVOCATION_KEYS.appStatus, the gate's key).
 * Everything else is notification's to decide on CONNECT, where the token normally travels, and
 * where a suspended app is refused too (account-standing.ts); so an unverifiable token or Redis
 * being away changes nothing here.
 */
async function appSuspended(gate: WebsocketGate, request: FastifyRequest): Promise<boolean> {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string' || authorization === '') return false;
  const verified = await verifyCaller(authorization, 'bearer', gate.verifyToken, request.log);
  const app = verified.ok ? verified.caller?.app : undefined;
  if (!app) return false;
  try {
    return (await gate.redis.exists(REVOCATION_KEYS.appStatus(app.clientId))) === 1;
  } catch {
    return false;
  }
}

function refuseSuspendedApp(gate: WebsocketGate) {
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    appSuspended(gate, request).then((suspended) => {
      if (suspended) void sendError(request, reply, 401, 'UNAUTHORIZED', 'The app has been suspended.');
      else done();
    }, done);
  };
}

/**
 * WS-1: `/api/ws` (raw STOMP) and `/api/ws/**` (SockJS) go to notification, path unchanged.
 * No token is required at the upgrade: the STOMP CONNECT frame carries the bearer token and
 * notification checks it (WS-1, docs/api.md "Websocket"); an app token sent on the upgrade itself
 * is refused while its app is suspended (`refuseSuspendedApp`). Client-sent identity headers were
 * already dropped by the root hook.
 */
export async function registerWebsocketProxy(app: FastifyInstance, config: GatewayConfig, gate?: WebsocketGate): Promise<void> {
  const wsClientOptions = { rewriteRequestHeaders: wsHandshakeHeaders } as FastifyHttpProxyOptions['wsClientOptions'];
  await app.register(httpProxy, {
    upstream: config.NOTIFICATION_URL,
    prefix: '/api/ws',
    rewritePrefix: '/api/ws',
    websocket: true,
    wsClientOptions,
    ...(gate ? { preHandler: refuseSuspendedApp(gate) } : {}),
    undici: { connections: 32, pipelining: 1, connect: { timeout: CONNECT_TIMEOUT_MS } },
    disableRequestLogging: true,
    replyOptions: {
      timeout: config.UPSTREAM_TIMEOUT_MS,
      retryDelay: () => null,
      rewriteRequestHeaders: (request, headers) => forwardHeaders(request as FastifyRequest, headers as IncomingHttpHeaders),
      onError: (reply, { error }) => onUpstreamError(reply as unknown as FastifyReply, error),
    },
  });
}

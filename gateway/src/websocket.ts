import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import type { IncomingHttpHeaders } from 'node:http';
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

/**
 * WS-1: `/api/ws` (raw STOMP) and `/api/ws/**` (SockJS) go to notification, path unchanged.
 * No auth at the upgrade: the STOMP CONNECT frame carries the bearer token and notification
 * checks it (WS-1, docs/api.md "Websocket"). Client-sent identity headers were already dropped by the root hook.
 */
export async function registerWebsocketProxy(app: FastifyInstance, config: GatewayConfig): Promise<void> {
  const wsClientOptions = { rewriteRequestHeaders: wsHandshakeHeaders } as FastifyHttpProxyOptions['wsClientOptions'];
  await app.register(httpProxy, {
    upstream: config.NOTIFICATION_URL,
    prefix: '/api/ws',
    rewritePrefix: '/api/ws',
    websocket: true,
    wsClientOptions,
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
